/** Bots: a project's bots (instructions, model, temperature), their store port and their management. */
export {
  type Bot,
  type BotFields,
  BotForbiddenError,
  type BotKnowledgeState,
  BotNotFoundError,
  type BotPatch,
  type BotStore,
  type KnowledgeSegmentRef,
  resolveBotForProject,
  segmentRefs,
} from './bot.ts';
export { type BotDeps, type BotUseCases, makeBotUseCases } from './manage-bots.ts';
