/**
 * Models: what a language or embeddings model is to this service: the port every provider implements (the request,
 * the answer whole or streamed, the ways a call fails), the router that picks a bot's model, the model spec a bot
 * names it by, and the parameter table. No provider lives here (they are `model-providers`), so an area that speaks
 * of models bundles none of their SDKs. The only way into the area from outside it.
 */
export { type EmbeddingsProvider, unitVector } from './embeddings-provider.ts';
export {
  conversationOf,
  type ConversationTurn,
  deadlineError,
  type GroundingExcerpt,
  type JsonSchemaFormat,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  stoppedAtLength,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
} from './model-provider.ts';
export type { ModelRouter, ResolvedModel } from './model-router.ts';
export { MODEL_PROVIDERS, type ModelProviderName, parseModelSpec } from './model-spec.ts';
export { type ModelParameters, parameterTableMarkdown, refusedParameter } from './parameters.ts';
