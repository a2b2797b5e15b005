/**
 * Bots: a project's bots (instructions, model, temperature), their store, their management API and its
 * documentation. The only way into the area from outside it.
 */
export {
  type Bot,
  BotForbiddenError,
  BotNotFoundError,
  type BotStore,
  type KnowledgeSegmentRef,
  resolveBotForProject,
  segmentRefs,
} from './bot.ts';
export { DynamoBotStore } from './adapters/dynamo-bot-store.ts';
export { botRouteDocs, botRoutes } from './api/admin-routes.ts';
export { bot, botPage } from './api/schemas.ts';
export { wireBotAdmin } from './wiring.ts';
