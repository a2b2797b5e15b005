import type { ModelParameters } from './parameters.ts';

/**
 * The port every language-model technology implements (Bedrock Converse, OpenAI-compatible Chat Completions, the
 * offline generator): one answer whole (`generate`) or in pieces as the model produces them (`stream`). The caller's
 * functions (tools) go to the model and its calls come back; the service runs none of them. A request carries the
 * conversation the caller sent (the OpenAI-format routes pass their history); the service keeps no conversation state.
 */

/** A call of one of the caller's functions, as the model asked for it. */
export interface ToolCall {
  /** The call's id (`call_…`, Bedrock's `tooluse_…`): the caller answers it with a tool turn of the same id. */
  id: string;
  name: string;
  /** The arguments as JSON text (an object), exactly as the model wrote them. */
  arguments: string;
}

/** One of the caller's functions the model may call. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /** Ask the provider to make the arguments follow the schema exactly, where it can. */
  strict?: boolean;
}

/** `auto`: the model decides; `none`: no call; `required`: at least one call; `{ name }`: a call of that function. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A JSON Schema the answer must be valid against (OpenAI's `response_format: json_schema`). */
export interface JsonSchemaFormat {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
  strict?: boolean;
}

/**
 * One message of the conversation the caller sent, system messages excluded (they are part of `system`): a user's
 * text, the assistant's text and the calls it made, or the result of one call (`tool`).
 */
export type ConversationTurn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; text: string };

/** A knowledge excerpt given to the model; the offline generator answers from the best one. */
export interface GroundingExcerpt {
  text: string;
  /** The file name as uploaded. */
  fileName: string;
  /** 0..1, higher is better. */
  score: number;
}

export interface ModelRequest {
  /** Model id inside the provider (`gpt-4o-mini`, `amazon.nova-lite-v1:0`); the provider's default when absent. */
  model?: string;
  /** The full system prompt: instructions, knowledge excerpts and the output rules, already composed. */
  system: string;
  /** The caller's prompt: the one user message, or the last user message of `turns`. */
  prompt: string;
  /**
   * The whole conversation, oldest first, when the caller sent one (it contains `prompt`); absent: `prompt` is the
   * one user message.
   */
  turns?: ConversationTurn[];
  /** `json`: the model is asked for one JSON value (natively where the provider supports it). */
  responseFormat: 'text' | 'json';
  /** With `responseFormat: json`: the JSON Schema the answer must match (native structured output where there is one). */
  jsonSchema?: JsonSchemaFormat;
  /** The caller's functions; absent or empty: the model answers with text. */
  tools?: ToolDefinition[];
  /** Absent: `auto`. */
  toolChoice?: ToolChoice;
  /** `false`: at most one call per answer. Absent: the provider's default (several allowed). */
  parallelToolCalls?: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  /** The caller's other sampling and routing parameters, each one the provider takes (see `parameters.ts`). */
  parameters?: ModelParameters;
  /** The excerpts that were put into `system`, for providers that work from them directly (offline). */
  excerpts: GroundingExcerpt[];
  /** Aborted when the caller's time budget is spent: the provider must stop its network call at once. */
  signal: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelReply {
  /** The answer's text; may be empty when the model answered with tool calls only. */
  text: string;
  /** The calls the model asked for, in order; absent or empty: none. */
  toolCalls?: ToolCall[];
  /** Present only when the model reported it. */
  usage?: ModelUsage;
  /** `provider:model` that answered, for logs. */
  model: string;
  /** Why generation stopped, in the provider's words (`end_turn`, `stop`, `length`, `max_tokens`...). */
  stopReason?: string;
}

/**
 * What a streamed answer yields: text as it comes (never empty) and the model's calls (a `tool-call` when a call
 * starts, with its id and name, then `tool-arguments` pieces of its JSON arguments), then exactly one `end` with what
 * `generate` would have reported besides the answer. `index` numbers the calls of the answer 0, 1, 2… in the order
 * they started. A failure, before or after the first piece, is thrown as a {@link ModelError}.
 */
export type ModelStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; index: number; id: string; name: string }
  | { type: 'tool-arguments'; index: number; text: string }
  | { type: 'end'; model: string; usage?: ModelUsage; stopReason?: string };

export interface ModelProvider {
  /** `bedrock`, `openai` or `offline`: which column of the parameter table (`parameters.ts`) applies to it. */
  readonly name: string;
  generate(request: ModelRequest): Promise<ModelReply>;
  /**
   * The same answer in pieces, each yielded as soon as the model produced it. The request's signal aborts the
   * underlying call (deadline or a caller who went away); so does ending the iteration early.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/** True for stop reasons that mean "the model asked for tool calls". */
export function stoppedForTools(stopReason: string | undefined): boolean {
  return stopReason === 'tool_calls' || stopReason === 'tool_use';
}

/** The messages to send: the conversation, or the prompt as the one user message. */
export function conversationOf(request: Pick<ModelRequest, 'prompt' | 'turns'>): ConversationTurn[] {
  return request.turns && request.turns.length > 0 ? request.turns : [{ role: 'user', text: request.prompt }];
}

/** True for stop reasons that mean "cut off at the output token limit" rather than a natural end. */
export function stoppedAtLength(stopReason: string | undefined): boolean {
  return stopReason === 'length' || stopReason === 'max_tokens';
}

/**
 * Why a model call failed, in terms the caller can act on:
 * - `timeout`: our deadline passed and the call was aborted (504), or the model service timed out itself;
 * - `throttled`, `unavailable`: the model service is busy or down: not the caller's fault, worth retrying later;
 * - `rejected`: the model refused this input (content filter, guardrail, a request it cannot take);
 * - `too-long`: the prompt, history and instructions do not fit the model's context window;
 * - `misconfigured`: the deployment's model settings are wrong (unknown model, no access, bad key);
 * - `unsupported`: this model does not take one of the request's parameters (`param` names it): the caller's to change;
 * - `failed`: anything else (a malformed answer, an empty answer, an unexpected error).
 */
export type ModelFailureKind =
  | 'timeout'
  | 'throttled'
  | 'unavailable'
  | 'rejected'
  | 'too-long'
  | 'misconfigured'
  | 'unsupported'
  | 'failed';

/** A failed model call. `message` is safe to show to the API caller; `cause` goes to the log only. */
export class ModelError extends Error {
  readonly kind: ModelFailureKind;
  /** Seconds after which a retry may succeed, when the provider said so (or a sensible default for throttling). */
  readonly retryAfterSeconds?: number;
  /** With `unsupported`: the request parameter (OpenAI's name: `tool_choice`, `top_p`…) the model does not take. */
  readonly param?: string;

  constructor(
    kind: ModelFailureKind,
    message: string,
    options: { cause?: unknown; retryAfterSeconds?: number; param?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelError';
    this.kind = kind;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.param !== undefined) this.param = options.param;
  }

  /** True when trying again later may succeed without changing the request. */
  get retryable(): boolean {
    return this.kind === 'timeout' || this.kind === 'throttled' || this.kind === 'unavailable';
  }
}

/** The error a provider throws when the request's signal fired: our own deadline, not the model's fault. */
export function deadlineError(cause?: unknown): ModelError {
  return new ModelError('timeout', 'The model did not answer within timeoutMs; the call was aborted.', { cause });
}
