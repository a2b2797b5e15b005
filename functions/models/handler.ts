import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { openAiErrors, wireModels } from '#shared/completion/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root, built once per cold start: the Bots API auth and the bot store.
const platform = meteredPlatform('models');
const { logger, metrics, table } = platform;

/** `GET /api/v1/ai/models` and `/models/{id}`: the project's bots as OpenAI's models. Errors use OpenAI's body. */
export const handler = botsApiFunction({
  logger,
  metrics,
  errorBody: openAiErrors(logger),
  auth: wireBotsApiAuth(platform),
}).handler(wireModels({ bots: new DynamoBotStore(table) }));
