import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { BotNotFoundError, DynamoBotStore, type Bot } from '#shared/bots/index.ts';
import { config } from '#shared/kernel/config.ts';
import { openAiErrors } from '#shared/completion/api/openai/openai-errors.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root, built once per cold start: the Bots API auth and the bot store.
const cfg = config();
const logger = createLogger('models');
const metrics = new PowertoolsMetrics('models');
const table = dynamoTable(cfg);
const bots = new DynamoBotStore(table);

/** Longest id looked up: a longer one cannot be a bot id, and would be over the table's key size. */
const MAX_ID_CHARS = 200;

const modelObject = (bot: Bot) => ({
  id: bot.botId,
  object: 'model',
  created: Math.floor(Date.parse(bot.createdAt) / 1000),
  owned_by: bot.projectId,
});

/**
 * `GET /api/v1/ai/models`: the project's bots as OpenAI's model list, so `client.models.list()` shows what `model`
 * may name; `GET /api/v1/ai/models/{id}`: one of them (`client.models.retrieve(botId)`). A bot that does not exist,
 * or is another project's, is 404 `model_not_found`, as OpenAI answers a model the key cannot use. Free; counted by
 * the rate limit. Errors use OpenAI's body.
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  errorBody: openAiErrors(logger),
  auth: botsApiAuthFromConfig(cfg, table, metrics),
}).handler(async (event) => {
  const projectId = event.auth.grant.projectId;
  const id = event.pathParameters?.id;
  if (id !== undefined) {
    const botId = id;
    const bot = botId.length <= MAX_ID_CHARS ? await bots.get(botId) : undefined;
    if (!bot || bot.projectId !== projectId) throw new BotNotFoundError(botId.slice(0, MAX_ID_CHARS));
    return json(200, modelObject(bot));
  }
  const list = await bots.listByProject(projectId);
  return json(200, { object: 'list', data: list.map(modelObject) });
});
