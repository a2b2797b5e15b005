import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import type { CompletionOutput } from '#shared/completion/complete-text.ts';
import { fontesOf } from '#shared/completion/api/fontes.ts';
import { parseCompletionRequest } from '#shared/completion/api/completion-request.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { routes } from '#shared/contract/routes.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { completeTextFromConfig } from '#functions/_wiring/complete-text.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

/** Time kept between the end of generation and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 2_000;

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('completion');
const metrics = new PowertoolsMetrics('completion');
const table = dynamoTable(cfg);
// A retry may take over an Idempotency-Key only once this request can no longer be running: its timeout plus margin.
const lockSeconds = (routes.find((r) => r.fn === 'completion')?.timeoutSeconds ?? 100) + 10;
const completeText = await completeTextFromConfig(cfg, { table, logger, metrics });

/** `POST /api/v1/ai/completion`: generation with a bot or standalone instructions, 1 bot credit, refunded on failure. */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  idempotency: idempotencyOnDynamo(table, logger, lockSeconds),
  body: jsonObjectBody(),
}).handler(async (event, context) => {
  const request = parseCompletionRequest(event.parsedBody);
  const lambdaDeadline = Date.now() + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS;
  const output = await completeText({
    caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
    prompt: request.prompt,
    ...(request.botId === undefined ? {} : { botId: request.botId }),
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
    responseFormat: request.responseFormat,
    timeoutMs: request.timeoutMs,
    deadline: Math.min(event.receivedAtMs + request.timeoutMs, lambdaDeadline),
  });
  logger.info('completion', { model: output.model, responseFormat: output.responseFormat, ...(output.usage ?? {}) });
  return json(200, responseBody(output));
});

function responseBody(output: CompletionOutput): Record<string, unknown> {
  const body: Record<string, unknown> =
    output.responseFormat === 'json' ? { success: true, dados: output.data } : { success: true, result: output.text };
  if (output.usage) body.usage = { inputTokens: output.usage.inputTokens, outputTokens: output.usage.outputTokens };
  if (output.sources.length > 0) body.fontes = fontesOf(output.sources);
  return body;
}
