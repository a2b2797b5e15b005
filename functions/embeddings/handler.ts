import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { DynamoCreditLedger, meteredCreditLedger } from '#shared/credits/index.ts';
import { config } from '#shared/kernel/config.ts';
import { openAiErrors } from '#shared/completion/api/openai/openai-errors.ts';
import {
  checkEmbeddingsAnswerFits,
  embeddingsResponse,
  parseEmbeddingsRequest,
} from '#shared/completion/api/openai/embeddings.ts';
import { HashedEmbeddings } from '#shared/knowledge/adapters/hashed-embeddings.ts';
import { makeEmbedTexts } from '#shared/knowledge/embed-texts.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { embeddingsFromConfig } from '#functions/_wiring/embeddings.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root, built once per cold start: the Bots API auth, the bots, the credit ledger and the deployment's
// embeddings model (the one knowledge indexes use), or the deterministic hashed embedding when it has none.
const cfg = config();
const logger = createLogger('embeddings');
const metrics = new PowertoolsMetrics('embeddings');
const table = dynamoTable(cfg);
const embedTexts = makeEmbedTexts({
  bots: new DynamoBotStore(table),
  credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
  embeddings: embeddingsFromConfig(cfg) ?? new HashedEmbeddings(),
  log: { error: (message, extra) => logger.error(message, extra ?? {}) },
});

/** Time kept between the end of the work and the Lambda's own timeout, for the refund and the answer. */
const LAMBDA_MARGIN_MS = 2_000;

/**
 * `POST /api/v1/ai/embeddings`: OpenAI's Embeddings: 1 bot credit per request of up to 2,048 inputs, refunded when the
 * model fails; a batch whose answer would not fit the response limit is a 400 before the charge. Errors use OpenAI's
 * body.
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  errorBody: openAiErrors(logger),
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  body: jsonObjectBody(),
}).handler(async (event, context) => {
  const request = parseEmbeddingsRequest(event.parsedBody);
  const output = await embedTexts({
    caller: { projectId: event.auth.grant.projectId, monthlyBotCredits: event.auth.grant.monthlyBotCredits },
    model: request.model,
    texts: request.texts,
    ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
    checkBeforeCharge: (dimensions) => checkEmbeddingsAnswerFits(request, dimensions),
    deadline: Date.now() + context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS,
  });
  logger.info('embeddings', { inputs: request.texts.length, model: output.model });
  return json(200, embeddingsResponse(request, output));
});
