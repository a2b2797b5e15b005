/** Models: the model provider port, model specs (which model answers a bot), the parameter table and the router. */
export {
  conversationOf,
  type ConversationTurn,
  deadlineError,
  type GroundingExcerpt,
  type JsonSchemaFormat,
  ModelError,
  type ModelFailureKind,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  stoppedAtLength,
  stoppedForTools,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
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
export {
  type ModelParameterName,
  type ModelParameters,
  PARAMETER_RULES,
  type ParameterRow,
  parameterTable,
  parameterTableMarkdown,
  refusedParameter,
  TEMPERATURE_RULES,
} from './parameters.ts';
