import * as z from '../../kernel/validation/zod.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import { ValidationError } from '../../kernel/domain-error.ts';
import { zodIssuesToDetails, type ErrorDetail } from '../../kernel/validation/issues.ts';
import type { CompletionRequest } from '../completion.ts';

/** The spec's limits for a completion request. */
export const COMPLETION_LIMITS = {
  promptChars: 120_000,
  instructionsChars: 60_000,
  timeoutMs: { min: 1_000, max: 90_000, default: 30_000 },
} as const;

/**
 * The `POST /api/v1/ai/completion` body: what the handler validates and what the OpenAPI document shows. The rule
 * "exactly one of `botId` / `instructions`" is checked by {@link parseCompletionRequest}, so every problem is
 * reported at once.
 */
export const completionRequest = withMeta(
  z.strictObject({
    prompt: z
      .string({ error: (issue) => (issue.input === undefined ? 'prompt is required' : 'prompt must be a string') })
      .check(
        z.minLength(1, 'prompt must not be empty'),
        z.maxLength(
          COMPLETION_LIMITS.promptChars,
          `prompt must be at most ${COMPLETION_LIMITS.promptChars} characters`,
        ),
      ),
    botId: withMeta(
      z.optional(z.string().check(z.minLength(1, 'botId must not be empty'), z.maxLength(200, 'botId is too long'))),
      {
        description: 'The bot whose instructions and knowledge are used. Exactly one of `botId` / `instructions`.',
      },
    ),
    instructions: withMeta(
      z.optional(
        z
          .string()
          .check(
            z.minLength(1, 'instructions must not be empty'),
            z.maxLength(
              COMPLETION_LIMITS.instructionsChars,
              `instructions must be at most ${COMPLETION_LIMITS.instructionsChars} characters`,
            ),
          ),
      ),
      { description: 'A standalone system prompt. Exactly one of `botId` / `instructions`.' },
    ),
    responseFormat: withMeta(
      z._default(z.enum(['text', 'json'], { error: 'responseFormat must be "text" or "json"' }), 'text'),
      {
        description: '`json`: the answer is parsed and returned in `dados`.',
      },
    ),
    timeoutMs: withMeta(
      z._default(
        z
          .number({ error: 'timeoutMs must be a number of milliseconds' })
          .check(
            z.gte(COMPLETION_LIMITS.timeoutMs.min, `timeoutMs must be at least ${COMPLETION_LIMITS.timeoutMs.min}`),
            z.lte(COMPLETION_LIMITS.timeoutMs.max, `timeoutMs must be at most ${COMPLETION_LIMITS.timeoutMs.max}`),
          ),
        COMPLETION_LIMITS.timeoutMs.default,
      ),
      { description: 'Past it: 504 GATEWAY_TIMEOUT, the model call aborted, the credit refunded.' },
    ),
  }),
  { id: 'CompletionRequest' },
);

/** A native completion: what it asks of the model, and the caller's time budget. */
export interface NativeCompletion {
  completion: CompletionRequest;
  timeoutMs: number;
}

/**
 * Validates a completion body and reports every problem at once (400 VALIDATION_ERROR with `details[]`): the field
 * rules, unknown fields, and the rule that exactly one of `botId` / `instructions` is given.
 */
export function parseCompletionRequest(body: Record<string, unknown>): NativeCompletion {
  const result = completionRequest.safeParse(body);
  const details: ErrorDetail[] = result.success ? [] : zodIssuesToDetails(result.error.issues);
  const hasBot = body.botId !== undefined;
  const hasInstructions = body.instructions !== undefined;
  if (hasBot && hasInstructions) {
    details.push({
      path: 'instructions',
      message: 'Give either botId or instructions, not both: they are alternatives',
      code: 'custom',
    });
  } else if (!hasBot && !hasInstructions) {
    details.push({ path: 'botId', message: 'botId or instructions is required', code: 'custom' });
  }
  if (details.length > 0 || !result.success) {
    throw new ValidationError(
      details.length === 1 ? `The request is invalid: ${details[0]!.message}.` : 'The request is invalid.',
      details,
    );
  }
  const { prompt, botId, instructions, responseFormat, timeoutMs } = result.data;
  return {
    completion: {
      prompt,
      responseFormat,
      ...(botId === undefined ? {} : { botId }),
      ...(instructions === undefined ? {} : { instructions }),
    },
    timeoutMs: Math.floor(timeoutMs),
  };
}
