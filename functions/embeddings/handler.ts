import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { openAiErrors, wireEmbeddings } from '#shared/completion/index.ts';
import { wireCreditLedger } from '#shared/credits/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root, built once per cold start: the Bots API auth, the bots, the credit ledger and the deployment's
// embeddings model.
const platform = meteredPlatform('embeddings');
const { cfg, logger, metrics, table } = platform;

/** `POST /api/v1/ai/embeddings`: OpenAI's Embeddings, 1 bot credit per request. Errors use OpenAI's body. */
export const handler = botsApiFunction({
  logger,
  metrics,
  errorBody: openAiErrors(logger),
  auth: wireBotsApiAuth(platform),
  body: jsonObjectBody(),
}).handler(
  wireEmbeddings(platform, {
    bots: new DynamoBotStore(table),
    credits: wireCreditLedger(platform),
    embeddings: embeddingsFromSettings(cfg),
  }),
);
