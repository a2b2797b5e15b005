import type { ProjectApiTokenGrant } from '../../../auth/index.ts';
import { type Bot, BotNotFoundError, type BotStore } from '../../../bots/index.ts';
import { BOTS_API_AUTH_ERRORS, type PublicOperationDocs } from '../../../contract/api-docs.ts';
import { type HttpEvent, type HttpResult, json } from '../../../http/types.ts';
import { modelList, modelObject } from '../schemas.ts';

/** Longest id looked up: a longer one cannot be a bot id, and would be over the table's key size. */
const MAX_ID_CHARS = 200;

const modelOf = (bot: Bot) => ({
  id: bot.botId,
  object: 'model',
  created: Math.floor(Date.parse(bot.createdAt) / 1000),
  owned_by: bot.projectId,
});

/**
 * `GET /api/v1/ai/models`: the project's bots as OpenAI's model list, so `client.models.list()` shows what `model`
 * may name; `GET /api/v1/ai/models/{id}`: one of them (`client.models.retrieve(botId)`). A bot that does not exist,
 * or is another project's, is 404 `model_not_found`, as OpenAI answers a model the key cannot use. Free; counted by
 * the rate limit.
 */
export function modelsHandler(deps: { bots: Pick<BotStore, 'get' | 'listByProject'> }) {
  return async function serveModels(event: HttpEvent<unknown, { grant: ProjectApiTokenGrant }>): Promise<HttpResult> {
    const projectId = event.auth.grant.projectId;
    const id = event.pathParameters?.id;
    if (id !== undefined) {
      const bot = id.length <= MAX_ID_CHARS ? await deps.bots.get(id) : undefined;
      if (!bot || bot.projectId !== projectId) throw new BotNotFoundError(id.slice(0, MAX_ID_CHARS));
      return json(200, modelOf(bot));
    }
    const list = await deps.bots.listByProject(projectId);
    return json(200, { object: 'list', data: list.map(modelOf) });
  };
}

/** The routes in the API reference (the OpenAPI document). */
export function modelsDocs(): PublicOperationDocs {
  return {
    'GET /api/v1/ai/models': {
      operationId: 'listModels',
      summary: "The project's bots as OpenAI's model list (free)",
      description:
        'What `client.models.list()` shows: each bot a model whose `id` is the botId. Counted by the rate limit.',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      errorFormat: 'openai',
      responses: { 200: { description: "The project's bots.", body: modelList } },
      errors: BOTS_API_AUTH_ERRORS,
    },
    'GET /api/v1/ai/models/{id}': {
      summary: 'One bot as an OpenAI model object (free)',
      description:
        'What `client.models.retrieve(botId)` returns. A bot that does not exist or is another project’s: 404 ' +
        '`model_not_found`, as OpenAI answers a model the key cannot use. Counted by the rate limit.',
      operationId: 'getModel',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      errorFormat: 'openai',
      responses: { 200: { description: 'The bot.', body: modelObject } },
      errors: { ...BOTS_API_AUTH_ERRORS, 404: ['BOT_NOT_FOUND'] },
    },
  };
}
