/** Models: the model provider port, model specs (which model answers a bot) and the router. */
export {
  conversationOf,
  type ConversationTurn,
  deadlineError,
  type GroundingExcerpt,
  ModelError,
  type ModelFailureKind,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  stoppedAtLength,
} from './model-provider.ts';
export type { ModelRouter, ResolvedModel } from './model-router.ts';
export {
  formatModelSpec,
  MODEL_PROVIDERS,
  MODEL_SPEC_MAX_LENGTH,
  type ModelProviderName,
  type ModelSpec,
  type ModelSpecResult,
  parseModelSpec,
} from './model-spec.ts';
