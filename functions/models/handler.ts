import type { BotsApiCaller } from '#shared/http/bots-api.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import { openAiErrors } from '#shared/http/openai-errors.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { bots, botsApiAuth, logger } from './wiring.ts';

/**
 * `GET /api/v1/ai/models`: the project's bots as OpenAI's model list, so `client.models.list()` shows what `model`
 * may name. Free; counted by the rate limit. Errors use OpenAI's body.
 */
export const handler = httpFunction(logger)
  .use(openAiErrors(logger))
  .use(botsApiAuth)
  .handler(async (event: HttpEvent<unknown, BotsApiCaller>) => {
    const projectId = event.auth.grant.projectId;
    const list = await bots.listByProject(projectId);
    return json(200, {
      object: 'list',
      data: list.map((bot) => ({
        id: bot.botId,
        object: 'model',
        created: Math.floor(Date.parse(bot.createdAt) / 1000),
        owned_by: projectId,
      })),
    });
  });
