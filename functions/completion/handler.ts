import { PowertoolsMetrics } from '#shared/adapters/powertools/powertools-metrics.ts';
import { config } from '#shared/config/config.ts';
import { readOptionalSecret } from '#shared/adapters/aws/secrets.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { modelRouterFromConfig } from '#shared/adapters/models/model-router.ts';
import { makeCompleteText, type CompletionOutput } from '#shared/completion/complete-text.ts';
import { fontesOf } from '#shared/completion/fontes.ts';
import { parseCompletionRequest } from '#shared/completion/completion-request.ts';
import { botsApiFunction, jsonObjectBody } from '#shared/http/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { routes } from '#shared/resources/routes.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { idempotencyOnDynamo } from '#functions/_wiring/idempotency.ts';
import { knowledgeSearchFromConfig } from '#functions/_wiring/knowledge.ts';
import { meteredCreditLedger, meteredModelRouter } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

/** Time kept between the end of generation and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 2_000;

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('completion');
const metrics = new PowertoolsMetrics('completion');
const table = dynamoTable(cfg);
const bots = new DynamoBotStore(table);
const openAiApiKey = await readOptionalSecret(cfg.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
  logger.warn('model API key secret unreadable; OpenAI-compatible calls will go without a key', {
    cause: String(cause),
  }),
);
// A retry may take over an Idempotency-Key only once this request can no longer be running: its timeout plus margin.
const lockSeconds = (routes.find((r) => r.fn === 'completion')?.timeoutSeconds ?? 100) + 10;
// The same search (and index cache) as POST /api/v1/ai/search.
// Only completions for a bot with knowledge files read the knowledge bucket: S3 is loaded on the first of them.
const knowledge = knowledgeSearchFromConfig(cfg, { bots, logger });

const completeText = makeCompleteText({
  bots,
  knowledge,
  credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
  models: meteredModelRouter(modelRouterFromConfig(cfg, openAiApiKey === undefined ? {} : { openAiApiKey }), metrics),
  log: logger,
});

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
