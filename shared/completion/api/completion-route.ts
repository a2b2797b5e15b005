import {
  BOTS_API_AUTH_ERRORS,
  IDEMPOTENCY_ERRORS,
  JSON_BODY_ERRORS,
  type PublicOperationDocs,
} from '../../contract/api-docs.ts';
import { type Context, type HttpEvent, type HttpResult, json } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import type { CompleteText } from '../complete-text.ts';
import type { CompletionOutput } from '../completion.ts';
import { completionRequest, parseCompletionRequest } from './completion-request.ts';
import { fontesOf } from './fontes.ts';
import { LAMBDA_MARGIN_MS } from './lambda-margin.ts';
import { completionResult } from './schemas.ts';

/**
 * `POST /api/v1/ai/completion` once the project API token passed: the body read, the completion run within the
 * caller's `timeoutMs` (and the function's own time), answered as `result` or, for JSON, `dados`.
 */
export function completionHandler(deps: { completeText: CompleteText; log: Pick<Logger, 'info'> }) {
  return async function serveCompletion(
    event: HttpEvent<Record<string, unknown>, { grant: ProjectApiTokenGrant }>,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<HttpResult> {
    const { completion, timeoutMs } = parseCompletionRequest(event.parsedBody);
    const lambdaDeadline = Date.now() + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS;
    const output = await deps.completeText({
      ...completion,
      caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
      timeoutMs,
      deadline: Math.min(event.receivedAtMs + timeoutMs, lambdaDeadline),
    });
    deps.log.info('completion', {
      model: output.model,
      responseFormat: output.responseFormat,
      ...(output.usage ?? {}),
    });
    return json(200, responseBody(output));
  };
}

function responseBody(output: CompletionOutput): Record<string, unknown> {
  const body: Record<string, unknown> =
    output.responseFormat === 'json' ? { success: true, dados: output.data } : { success: true, result: output.text };
  if (output.usage) body.usage = { inputTokens: output.usage.inputTokens, outputTokens: output.usage.outputTokens };
  if (output.sources.length > 0) body.fontes = fontesOf(output.sources);
  return body;
}

/** The route in the API reference (the OpenAPI document). */
export function completionDocs(): PublicOperationDocs {
  return {
    'POST /api/v1/ai/completion': {
      operationId: 'createCompletion',
      summary: 'Generate text with a bot or standalone instructions (1 bot credit)',
      description:
        'Order: auth → rate limit → body → validation (400) → bot (403/404) → balance (402, nothing charged) → charge 1 → ' +
        'generate; any failure after the charge (502, 504, 500) refunds it once. `responseFormat: "json"` answers `dados`.',
      tags: ['AI'],
      security: 'apiToken',
      idempotent: true,
      rateLimited: true,
      requestBodies: [{ contentType: 'application/json', schema: completionRequest, source: 'handler' }],
      responses: { 200: { description: 'The generated text (or parsed JSON value).', body: completionResult } },
      errors: {
        ...JSON_BODY_ERRORS,
        ...BOTS_API_AUTH_ERRORS,
        402: ['ERR_NO_BOT_CREDITS'],
        403: ['BOT_FORBIDDEN'],
        404: ['BOT_NOT_FOUND'],
        ...IDEMPOTENCY_ERRORS,
        502: ['GENERATION_FAILED'],
        504: ['GATEWAY_TIMEOUT'],
      },
    },
  };
}
