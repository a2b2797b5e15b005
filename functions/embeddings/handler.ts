import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { openAiErrors, wireEmbeddings } from '#shared/completion/index.ts';
import { DynamoCreditLedger, meteredCreditLedger } from '#shared/credits/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { HashedEmbeddings, makeEmbedTexts } from '#shared/knowledge/index.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root, built once per cold start: the Bots API auth, the bots, the credit ledger and the deployment's
// embeddings model (the one knowledge indexes use), or the deterministic hashed embedding when it has none.
const platform = meteredPlatform('embeddings');
const { cfg, logger, metrics, table } = platform;
const embedTexts = makeEmbedTexts({
  bots: new DynamoBotStore(table),
  credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
  embeddings: embeddingsFromSettings(cfg) ?? new HashedEmbeddings(),
  log: { error: (message, extra) => logger.error(message, extra ?? {}) },
});

/** `POST /api/v1/ai/embeddings`: OpenAI's Embeddings, 1 bot credit per request. Errors use OpenAI's body. */
export const handler = botsApiFunction({
  logger,
  metrics,
  errorBody: openAiErrors(logger),
  auth: wireBotsApiAuth(platform),
  body: jsonObjectBody(),
}).handler(wireEmbeddings(platform, { embedTexts }));
