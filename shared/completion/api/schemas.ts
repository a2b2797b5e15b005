import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int } from '../../http/wire-schemas.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

const usage = withMeta(z.object({ inputTokens: int(), outputTokens: int() }), {
  description: 'When the model reports it.',
});

/** The wire's `fontes`: the knowledge files the answer was grounded on (native completion and the OpenAI route). */
export const fontes = withMeta(
  z.array(
    z.object({
      procedencia: withMeta(z.string(), { description: 'The file name as uploaded.' }),
      score: withMeta(z.number().check(z.gte(0), z.lte(1)), { description: "The file's best excerpt's score." }),
    }),
  ),
  {
    id: 'Fontes',
    description:
      'Present when the bot has knowledge and excerpts were given to the model: one entry per file, best first.',
  },
);

export const completionResult = withMeta(
  z.union([
    withMeta(
      z.object({ success: z.literal(true), result: z.string(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat text' },
    ),
    withMeta(
      z.object({ success: z.literal(true), dados: z.unknown(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat json' },
    ),
  ]),
  { id: 'CompletionResult' },
);

/** OpenAI's error body, on the OpenAI-format routes only (contract §12). */
export const openAiErrorBody = withMeta(
  z.object({
    error: z.object({
      message: z.string(),
      type: withMeta(z.string(), {
        description:
          '`invalid_request_error`, `authentication_error`, `permission_error`, `insufficient_quota`, `rate_limit_error`, `api_error`, `timeout_error`.',
      }),
      param: z.nullable(z.string()),
      code: z.nullable(z.string()),
    }),
  }),
  { id: 'OpenAiError' },
);

const chatUsage = z.object({ prompt_tokens: int(), completion_tokens: int(), total_tokens: int() });

const finishReason = z.enum(['stop', 'length']);

export const chatCompletionResult = withMeta(
  z.object({
    id: withMeta(z.string(), { description: '`chatcmpl-…`' }),
    object: z.literal('chat.completion'),
    created: withMeta(int(), { description: 'Unix seconds.' }),
    model: withMeta(z.string(), { description: 'The botId.' }),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: finishReason,
      }),
    ),
    usage: z.optional(chatUsage),
    fontes: z.optional(fontes),
  }),
  { id: 'ChatCompletion' },
);

export const chatCompletionChunk = withMeta(
  z.object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: int(),
    model: z.string(),
    choices: withMeta(
      z.array(
        z.object({
          index: z.literal(0),
          delta: z.object({ role: z.optional(z.literal('assistant')), content: z.optional(z.string()) }),
          logprobs: z.null(),
          finish_reason: z.nullable(finishReason),
        }),
      ),
      { description: 'Empty in the usage chunk (`stream_options.include_usage`).' },
    ),
    usage: z.optional(z.nullable(chatUsage)),
    fontes: withMeta(z.optional(fontes), { description: 'On the chunk that carries `finish_reason`.' }),
  }),
  {
    id: 'ChatCompletionChunk',
    description:
      'One `data:` event of the stream; the stream ends with `data: [DONE]`, or, after a failure, with `data: {"error": {…}}` (OpenAiError) and no `[DONE]`.',
  },
);

export const modelList = withMeta(
  z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        id: withMeta(z.string(), { description: 'The botId.' }),
        object: z.literal('model'),
        created: withMeta(int(), { description: 'Unix seconds: when the bot was created.' }),
        owned_by: withMeta(z.string(), { description: 'The projectId.' }),
      }),
    ),
  }),
  { id: 'ModelList' },
);
