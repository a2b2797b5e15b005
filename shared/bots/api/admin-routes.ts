import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json, noContent } from '#shared/http/types.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { parseModelSpec } from '#shared/models/index.ts';
import type { Bot } from '../bot.ts';
import type { BotUseCases } from '../manage-bots.ts';
import { bot, botPage } from './schemas.ts';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));
const instructions = z.string().check(z.minLength(1), z.maxLength(60_000));
/** `offline`, `openai[:<model>]` or `bedrock[:<model id>]`: refused here rather than failing at completion time. */
const model = z.string().check(
  z.trim(),
  z.superRefine((value, ctx) => {
    const parsed = parseModelSpec(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
  }),
);
const temperature = z.number().check(z.gte(0), z.lte(1));

const createBotBody = z.strictObject({
  name,
  instructions,
  model: z.optional(model),
  temperature: z.optional(temperature),
});
const patchBotBody = z
  .strictObject({
    name: z.optional(name),
    instructions: z.optional(instructions),
    model: z.optional(z.nullable(model)),
    temperature: z.optional(z.nullable(temperature)),
  })
  .check(z.refine((b) => Object.keys(b).length > 0, { message: 'Nothing to change: give at least one field.' }));

const botView = (b: Bot) => ({
  botId: b.botId,
  projectId: b.projectId,
  name: b.name,
  instructions: b.instructions,
  model: b.model ?? null,
  temperature: b.temperature ?? null,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});

/** Bots CRUD (their knowledge files: `shared/knowledge/api/admin-routes.ts`). */
export const botRoutes = {
  createBot: route({ method: 'POST', path: '/projects/{projectId}/bots', body: createBotBody }),
  listBots: route({ method: 'GET', path: '/projects/{projectId}/bots', query: pageQuery }),
  getBot: route({ method: 'GET', path: '/projects/{projectId}/bots/{botId}' }),
  patchBot: route({ method: 'PATCH', path: '/projects/{projectId}/bots/{botId}', body: patchBotBody }),
  deleteBot: route({ method: 'DELETE', path: '/projects/{projectId}/bots/{botId}' }),
};

/** The bot routes in the API reference (the OpenAPI document): what the declarations above cannot tell. */
export function botRouteDocs(): RouteDocs<typeof botRoutes> {
  return {
    createBot: {
      operationId: 'createBot',
      summary: 'Create a bot',
      description:
        'A bot is instructions, an optional model and temperature, and knowledge files; use its `botId` in the Bots API.',
      tags: ['Bots'],
      responses: { 201: { description: 'The bot.', body: bot } },
    },
    listBots: {
      operationId: 'listBots',
      summary: 'List bots',
      description: "The project's bots, a page at a time.",
      tags: ['Bots'],
      responses: { 200: { description: 'A page of bots.', body: botPage } },
    },
    getBot: {
      operationId: 'getBot',
      summary: 'Get a bot',
      description: 'The bot by id: its instructions, model and temperature (null = the defaults).',
      tags: ['Bots'],
      responses: { 200: { description: 'The bot.', body: bot } },
    },
    patchBot: {
      operationId: 'updateBot',
      summary: 'Change a bot',
      description:
        'Changes only the fields sent (at least one); `model` and `temperature` take `null` to go back to the defaults.',
      tags: ['Bots'],
      responses: { 200: { description: 'The bot after the change.', body: bot } },
    },
    deleteBot: {
      operationId: 'deleteBot',
      summary: 'Delete a bot and its knowledge',
      description: 'Deletes the bot and every knowledge file; its excerpts leave search at once.',
      tags: ['Bots'],
      responses: { 204: { description: 'Deleted.' } },
    },
  };
}

/** What serves the bot routes. */
export function botHandlers(bots: BotUseCases): RouteHandlers<typeof botRoutes> {
  return {
    createBot: async ({ params, body }) => json(201, botView(await bots.create(params.projectId, body))),
    listBots: async ({ params, query }) => {
      const page = await bots.list(params.projectId, query);
      return json(200, { ...page, items: page.items.map(botView) });
    },
    getBot: async ({ params }) => json(200, botView(await bots.requireBot(params.projectId, params.botId))),
    patchBot: async ({ params, body }) => json(200, botView(await bots.update(params.projectId, params.botId, body))),
    deleteBot: async ({ params }) => {
      await bots.delete(params.projectId, params.botId);
      return noContent();
    },
  };
}
