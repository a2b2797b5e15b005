import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type ConverseStreamOutput,
  type ContentBlock,
  type Tool,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  conversationOf,
  deadlineError,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  type ToolCall,
  type ConversationTurn,
  type JsonSchemaFormat,
} from '../model-provider.ts';

/** Suggested wait after Bedrock throttles; it sends no Retry-After of its own. */
const THROTTLE_RETRY_AFTER_SECONDS = 5;

/**
 * Model families whose Converse API takes `outputConfig.textFormat` (native structured output, constrained decoding),
 * matched on the model id without its cross-region inference prefix (`us.`, `eu.`, `global.`...).
 */
const STRUCTURED_OUTPUT_MODELS: RegExp[] = [
  /^anthropic\.claude-(haiku|sonnet|opus)-(4-[5-9]|[5-9])/,
  /^qwen\./,
  /^deepseek\./,
  /^mistral\./,
  /^google\.gemma/,
  /^nvidia\.nemotron/,
  /^minimax\./,
  /^moonshot/,
  /^openai\.gpt-oss/,
];

/**
 * The schema used when JSON is asked for without one (the Bots API asks for "one JSON value"): any object. A model
 * that only accepts closed schemas refuses it with a ValidationException; the adapter then asks again without it
 * (the validation answer comes back before any generation) and stops offering it to that model.
 */
const OPEN_JSON_SCHEMA = { type: 'object' };

export interface BedrockModelOptions {
  client: BedrockRuntimeClient;
  /** `BEDROCK_MODEL_ID`: used when the request names no model. */
  defaultModelId: string;
}

/**
 * Amazon Bedrock through the Converse API (one API for every model family), and ConverseStream when the answer is
 * streamed. The request's signal is passed as the SDK's `abortSignal`, so the deadline aborts the HTTP call itself. Bedrock's error types are mapped to what the
 * caller can act on: throttling, service unavailability and the model's own timeouts are not the caller's fault.
 */
export class BedrockModelProvider implements ModelProvider {
  readonly name = 'bedrock';
  /** Models seen refusing the open JSON schema during this instance's life. */
  private readonly closedSchemaOnly = new Set<string>();
  /** Models seen refusing a system prompt (some older text models): their instructions go in the user message. */
  private readonly noSystemPrompt = new Set<string>();

  constructor(private readonly options: BedrockModelOptions) {}

  async generate(request: ModelRequest): Promise<ModelReply> {
    const modelId = request.model ?? this.options.defaultModelId;
    return toReply(
      modelId,
      request,
      answerToolOf(modelId, request),
      await this.adapting(modelId, request, (input) =>
        this.options.client.send(new ConverseCommand(input), { abortSignal: request.signal }),
      ),
    );
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const modelId = request.model ?? this.options.defaultModelId;
    const output = await this.adapting(modelId, request, (input) =>
      this.options.client.send(new ConverseStreamCommand(input), { abortSignal: request.signal }),
    );
    if (!output.stream) throw new ModelError('failed', 'The model service answered without a stream.');
    const answerTool = answerToolOf(modelId, request);
    let stopReason: string | undefined;
    let usage: ModelUsage | undefined;
    let sawText = false;
    // Converse numbers content blocks (text ones too); OpenAI numbers the calls: block index → call index, and the
    // blocks of the answer tool (structured output by a forced tool), whose input is the answer's text.
    const calls = new Map<number, { index: number; sawArguments: boolean }>();
    const answerBlocks = new Set<number>();
    try {
      for await (const event of output.stream) {
        const start = event.contentBlockStart;
        const use = start?.start?.toolUse;
        if (start && use) {
          const block = start.contentBlockIndex ?? -1;
          if (answerTool && use.name === answerTool.name) answerBlocks.add(block);
          // parallel_tool_calls: false: a second call is dropped (its deltas then match no call).
          else if (request.parallelToolCalls !== false || calls.size === 0) {
            const index = calls.size;
            calls.set(block, { index, sawArguments: false });
            yield { type: 'tool-call', index, id: use.toolUseId ?? `call_${index}`, name: use.name ?? '' };
          }
        }
        const delta = event.contentBlockDelta;
        const input = delta?.delta?.toolUse?.input;
        if (delta && typeof input === 'string' && input) {
          const block = delta.contentBlockIndex ?? -1;
          const call = calls.get(block);
          if (answerBlocks.has(block)) {
            sawText ||= input.trim().length > 0;
            yield { type: 'text', text: input };
          } else if (call) {
            call.sawArguments = true;
            yield { type: 'tool-arguments', index: call.index, text: input };
          }
        }
        const stop = event.contentBlockStop;
        if (stop) {
          const call = calls.get(stop.contentBlockIndex ?? -1);
          // A call without arguments still has an arguments object.
          if (call && !call.sawArguments) {
            call.sawArguments = true;
            yield { type: 'tool-arguments', index: call.index, text: '{}' };
          }
        }
        const text = delta?.delta?.text;
        if (text) {
          sawText ||= text.trim().length > 0;
          yield { type: 'text', text };
        }
        if (event.messageStop) {
          stopReason = event.messageStop.stopReason;
          refuseStop(stopReason);
        }
        const u = event.metadata?.usage;
        if (u && typeof u.inputTokens === 'number' && typeof u.outputTokens === 'number') {
          usage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens };
        }
        const failure = streamedException(event);
        if (failure) throw failure;
      }
    } catch (error) {
      throw mapBedrockError(error, request.signal);
    }
    if (!sawText && calls.size === 0) throw new ModelError('failed', 'The model returned an empty answer.');
    // The answer tool's call is the answer, not a call for the caller to run: it ended the turn.
    if (answerBlocks.size > 0 && calls.size === 0 && stopReason === 'tool_use') stopReason = 'end_turn';
    yield {
      type: 'end',
      model: `bedrock:${modelId}`,
      ...(usage ? { usage } : {}),
      ...(stopReason ? { stopReason } : {}),
    };
  }

  /**
   * Sends a Converse(Stream) request, adapting to what the model refuses. A model that refuses one of our choices
   * does so with a ValidationException before generating anything, so adapting and asking again costs one quick
   * round trip, at most twice, and is remembered for the next call.
   */
  private async adapting<T>(
    modelId: string,
    request: ModelRequest,
    send: (input: ConverseCommandInput) => Promise<T>,
  ): Promise<T> {
    if (request.signal.aborted) throw deadlineError(request.signal.reason);
    let schema = this.nativeJsonSchema(modelId, request);
    let inlineSystem = this.noSystemPrompt.has(modelId);
    for (let attempt = 0; ; attempt++) {
      try {
        return await send(converseInput(modelId, request, schema, { inlineSystem }));
      } catch (error) {
        if (attempt < 2 && !request.signal.aborted) {
          if (schema === OPEN_JSON_SCHEMA && isSchemaRefusal(error)) {
            this.closedSchemaOnly.add(modelId);
            schema = undefined;
            continue;
          }
          if (!inlineSystem && isSystemPromptRefusal(error)) {
            this.noSystemPrompt.add(modelId);
            inlineSystem = true;
            continue;
          }
        }
        throw mapBedrockError(error, request.signal);
      }
    }
  }

  private nativeJsonSchema(modelId: string, request: ModelRequest): Record<string, unknown> | undefined {
    if (request.responseFormat !== 'json' || !supportsStructuredOutput(modelId)) return undefined;
    if (request.jsonSchema) return request.jsonSchema.schema;
    return this.closedSchemaOnly.has(modelId) ? undefined : OPEN_JSON_SCHEMA;
  }
}

/**
 * Structured output on a model without native structured output: a tool whose input schema is the answer's schema,
 * which the model is made to call; its input is the answer. Named after the schema, unless one of the caller's
 * functions has that name.
 */
function answerToolOf(modelId: string, request: ModelRequest): JsonSchemaFormat | undefined {
  const format = request.jsonSchema;
  if (request.responseFormat !== 'json' || !format || supportsStructuredOutput(modelId)) return undefined;
  const taken = new Set((request.tools ?? []).map((t) => t.name));
  let name = format.name;
  while (taken.has(name)) name = `${name}_answer`;
  return { ...format, name };
}

/** An exception Bedrock sent inside the stream, as the error {@link mapBedrockError} expects. */
function streamedException(event: ConverseStreamOutput): Error | undefined {
  const members = [
    ['internalServerException', 'InternalServerException'],
    ['modelStreamErrorException', 'ModelErrorException'],
    ['validationException', 'ValidationException'],
    ['throttlingException', 'ThrottlingException'],
    ['serviceUnavailableException', 'ServiceUnavailableException'],
  ] as const;
  for (const [member, name] of members) {
    const exception = (event as unknown as Record<string, { message?: string } | undefined>)[member];
    if (exception) return Object.assign(new Error(exception.message ?? name), { name });
  }
  return undefined;
}

/** True when the model takes native structured output (`outputConfig.textFormat`). */
export function supportsStructuredOutput(modelId: string): boolean {
  const id = baseModelId(modelId);
  return STRUCTURED_OUTPUT_MODELS.some((pattern) => pattern.test(id));
}

/** `us.anthropic.claude-…` → `anthropic.claude-…`; a foundation-model ARN → its model id. */
function baseModelId(modelId: string): string {
  const arn = /:foundation-model\/(.+)$/.exec(modelId);
  const id = arn ? arn[1]! : modelId;
  return id.replace(/^(us|eu|apac|global|jp|au|ca|us-gov)\./, '');
}

/** The Converse request for a model request; exported for tests of the mapping. */
export function converseInput(
  modelId: string,
  request: ModelRequest,
  jsonSchema: Record<string, unknown> | undefined,
  options: { inlineSystem?: boolean } = {},
): ConverseCommandInput {
  const answerTool = answerToolOf(modelId, request);
  const callerTools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
  const tools: Tool[] = [...callerTools, ...(answerTool ? [answerTool] : [])].map((tool) => ({
    toolSpec: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: { json: withoutSchemaKeyword('parameters' in tool ? tool.parameters : tool.schema) as never },
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }));
  // Converse refuses tool blocks in the history without a toolConfig: with no tools to offer, they are told as text.
  const messages = converseMessages(request, tools.length > 0);
  const input: ConverseCommandInput = options.inlineSystem
    ? { modelId, messages: inlineSystemPrompt(request.system, messages) }
    : { modelId, system: [{ text: request.system }], messages };
  const inference: NonNullable<ConverseCommandInput['inferenceConfig']> = {};
  // Converse models take 0..1 (a caller's value above 1 is refused before this; a bot's is at most 1).
  if (request.temperature !== undefined) inference.temperature = Math.min(1, request.temperature);
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  const parameters = request.parameters ?? {};
  if (parameters.top_p !== undefined) inference.topP = parameters.top_p;
  if (parameters.stop !== undefined && parameters.stop.length > 0) inference.stopSequences = parameters.stop;
  if (Object.keys(inference).length) input.inferenceConfig = inference;
  const metadata = {
    ...(parameters.metadata ?? {}),
    ...(parameters.user === undefined ? {} : { user: parameters.user }),
  };
  if (Object.keys(metadata).length) input.requestMetadata = metadata;
  if (parameters.service_tier === 'flex' || parameters.service_tier === 'priority')
    input.serviceTier = { type: parameters.service_tier };
  if (tools.length > 0) {
    const choice = request.toolChoice;
    input.toolConfig = {
      tools,
      ...(answerTool
        ? { toolChoice: typeof choice === 'object' ? { tool: { name: choice.name } } : { any: {} } }
        : choice === 'required'
          ? { toolChoice: { any: {} } }
          : typeof choice === 'object'
            ? { toolChoice: { tool: { name: choice.name } } }
            : {}),
    };
  }
  if (jsonSchema) {
    input.outputConfig = {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { name: request.jsonSchema?.name ?? 'answer', schema: JSON.stringify(jsonSchema) } },
      },
    };
  }
  return input;
}

/** A caller's schema as Converse takes it: without the `$schema` dialect marker clients add (some models refuse it). */
function withoutSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...rest } = schema;
  return rest;
}

type ConverseMessages = NonNullable<ConverseCommandInput['messages']>;

/**
 * The conversation as Converse takes it: it must start with a user turn and alternate, so consecutive turns of one
 * role are joined (the results of parallel calls become one user turn of `toolResult` blocks), and a conversation
 * that opens with the assistant gets an empty-handed user turn before it. Without tools on offer (`withTools`
 * false), calls and results are written as text.
 */
function converseMessages(request: ModelRequest, withTools: boolean): ConverseMessages {
  const messages: ConverseMessages = [];
  for (const turn of conversationOf(request)) {
    const role = turn.role === 'tool' ? 'user' : turn.role;
    const blocks = contentBlocks(turn, withTools);
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === role) last.content!.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ text: '(conversation)' }] });
  return messages;
}

function contentBlocks(turn: ConversationTurn, withTools: boolean): ContentBlock[] {
  if (turn.role === 'tool') {
    return withTools
      ? [{ toolResult: { toolUseId: turn.toolCallId, content: [{ text: turn.text || '(empty)' }] } }]
      : [{ text: `(result of call ${turn.toolCallId}: ${turn.text})` }];
  }
  const blocks: ContentBlock[] = turn.text ? [{ text: turn.text }] : [];
  if (turn.role === 'assistant') {
    for (const call of turn.toolCalls ?? []) {
      blocks.push(
        withTools
          ? { toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) as never } }
          : { text: `(called ${call.name} ${call.arguments} as ${call.id})` },
      );
    }
  }
  return blocks.length > 0 ? blocks : [{ text: '(empty)' }];
}

/** A call's JSON arguments as the document Converse takes (the edge checked they parse to an object). */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** For models that take no system prompt: the instructions go first in the first user turn. */
function inlineSystemPrompt(system: string, messages: ConverseMessages): ConverseMessages {
  const [first, ...rest] = messages;
  const text = (first?.content ?? []).map((block) => block.text ?? '').join('\n\n');
  return [{ role: 'user', content: [{ text: `${system}\n\n${text}` }] }, ...rest];
}

/** Stop reasons that mean the answer must not be used. */
function refuseStop(stopReason: string | undefined): void {
  if (stopReason === 'content_filtered' || stopReason === 'guardrail_intervened') {
    throw new ModelError('rejected', "The model's content filter blocked the answer.");
  }
  if (stopReason === 'model_context_window_exceeded') {
    throw new ModelError('too-long', "The prompt and instructions are too long for the model's context window.");
  }
  if (stopReason === 'malformed_model_output') throw new ModelError('failed', 'The model produced a malformed answer.');
}

function toReply(
  modelId: string,
  request: ModelRequest,
  answerTool: JsonSchemaFormat | undefined,
  output: ConverseCommandOutput,
): ModelReply {
  let stopReason: string | undefined = output.stopReason;
  refuseStop(stopReason);
  const content = output.output?.message?.content ?? [];
  let text = content.map((block) => block.text ?? '').join('');
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    const use = block.toolUse;
    if (!use?.name) continue;
    if (answerTool && use.name === answerTool.name) {
      // The forced answer tool: its input is the structured answer.
      text = JSON.stringify(use.input ?? {});
      continue;
    }
    if (request.parallelToolCalls === false && toolCalls.length > 0) continue;
    toolCalls.push({
      id: use.toolUseId ?? `call_${toolCalls.length}`,
      name: use.name,
      arguments: JSON.stringify(use.input ?? {}),
    });
  }
  if (!text.trim() && toolCalls.length === 0) throw new ModelError('failed', 'The model returned an empty answer.');
  if (toolCalls.length === 0 && stopReason === 'tool_use') stopReason = 'end_turn';
  const reply: ModelReply = { text, model: `bedrock:${modelId}` };
  if (toolCalls.length > 0) reply.toolCalls = toolCalls;
  if (stopReason) reply.stopReason = stopReason;
  const usage = output.usage;
  if (usage && typeof usage.inputTokens === 'number' && typeof usage.outputTokens === 'number') {
    reply.usage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  }
  return reply;
}

function isSystemPromptRefusal(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'ValidationException' &&
    /system (message|prompt)s?/i.test(e.message ?? '') &&
    /support/i.test(e.message ?? '')
  );
}

function isSchemaRefusal(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return (
    e?.name === 'ValidationException' &&
    /schema|outputConfig|textFormat|structured output|additionalProperties/i.test(e.message ?? '')
  );
}

/** Bedrock's exceptions as {@link ModelError}s; the original goes along as `cause` (for the log only). */
export function mapBedrockError(error: unknown, signal: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal.aborted) return deadlineError(error);
  const e = error as { name?: string; message?: string } | null;
  const name = e?.name ?? '';
  const message = e?.message ?? '';
  switch (name) {
    case 'ThrottlingException':
    case 'ServiceQuotaExceededException':
      return new ModelError('throttled', 'The model service is busy; try again later.', {
        cause: error,
        retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS,
      });
    case 'ServiceUnavailableException':
    case 'InternalServerException':
    case 'ModelNotReadyException':
      return new ModelError('unavailable', 'The model service is unavailable right now; try again later.', {
        cause: error,
        retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS,
      });
    case 'ModelTimeoutException':
    case 'TimeoutError':
      return new ModelError('unavailable', 'The model service timed out; try again later.', { cause: error });
    case 'AccessDeniedException':
    case 'ResourceNotFoundException':
    case 'UnrecognizedClientException':
      return new ModelError('misconfigured', 'The model is not available to this deployment.', { cause: error });
    case 'ValidationException':
      if (/toolChoice|tool_choice|tool choice/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this tool_choice.", {
          cause: error,
          param: 'tool_choice',
        });
      }
      if (/toolSpec|inputSchema|tool schema|toolConfig/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take these tool definitions.", {
          cause: error,
          param: 'tools',
        });
      }
      if (/outputConfig|textFormat|structured output|json_schema/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this JSON Schema.", {
          cause: error,
          param: 'response_format',
        });
      }
      if (/serviceTier|service tier/i.test(message)) {
        return new ModelError('unsupported', "This bot's model does not take this service_tier.", {
          cause: error,
          param: 'service_tier',
        });
      }
      if (/too long|too many (input )?tokens|context (window|length)|input length|max.*tokens/i.test(message)) {
        return new ModelError('too-long', "The prompt and instructions are too long for the model's context window.", {
          cause: error,
        });
      }
      if (/model identifier|model id|doesn't support|does not support|on-demand throughput/i.test(message)) {
        return new ModelError('misconfigured', 'The model is not available to this deployment.', { cause: error });
      }
      return new ModelError('rejected', 'The model rejected the request.', { cause: error });
    case 'ModelErrorException':
      return new ModelError('failed', 'The model failed while generating the answer.', { cause: error });
    default:
      return new ModelError('failed', 'The model call failed.', { cause: error });
  }
}

/**
 * The Bedrock runtime client for a deployment:
 * - HTTP/1.1 with keep-alive instead of the client's default HTTP/2 handler, which opens an isolated session (a
 *   new TLS handshake) per request: a warm function reuses its connection;
 * - the handler's request timeout made an error (`throwOnRequestTimeout`): by default it only logs a warning. It is
 *   a backstop behind the per-call abort signal, which is what enforces `timeoutMs`;
 * - no SDK retries: a retry would spend the caller's budget unseen; the caller gets "try again later" and its
 *   credit back instead.
 */
export function bedrockRuntimeClient(options: {
  region: string;
  requestTimeoutMs: number;
  /** A stand-in's address (tests); AWS's regional endpoint when absent. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: options.region,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      requestTimeout: options.requestTimeoutMs,
      connectionTimeout: 3_000,
      throwOnRequestTimeout: true,
    }),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
}
