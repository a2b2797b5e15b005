import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  type ConverseStreamOutput,
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
    let stopReason: string | undefined;
    let usage: ModelUsage | undefined;
    let sawText = false;
    try {
      for await (const event of output.stream) {
        const text = event.contentBlockDelta?.delta?.text;
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
    if (!sawText) throw new ModelError('failed', 'The model returned an empty answer.');
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
    if (request.jsonSchema) return request.jsonSchema;
    return this.closedSchemaOnly.has(modelId) ? undefined : OPEN_JSON_SCHEMA;
  }
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
  const messages = converseMessages(request);
  const input: ConverseCommandInput = options.inlineSystem
    ? { modelId, messages: inlineSystemPrompt(request.system, messages) }
    : { modelId, system: [{ text: request.system }], messages };
  const inference: NonNullable<ConverseCommandInput['inferenceConfig']> = {};
  // Converse models take 0..1; OpenAI's scale (the OpenAI-format route) goes to 2: above 1 is sent as 1.
  if (request.temperature !== undefined) inference.temperature = Math.min(1, request.temperature);
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  if (Object.keys(inference).length) input.inferenceConfig = inference;
  if (jsonSchema) {
    input.outputConfig = {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { name: 'answer', schema: JSON.stringify(jsonSchema) } },
      },
    };
  }
  return input;
}

type ConverseMessages = NonNullable<ConverseCommandInput['messages']>;

/**
 * The conversation as Converse takes it: it must start with a user turn and alternate, so consecutive turns of one
 * role are joined, and a conversation that opens with the assistant gets an empty-handed user turn before it.
 */
function converseMessages(request: ModelRequest): ConverseMessages {
  const messages: ConverseMessages = [];
  for (const turn of conversationOf(request)) {
    const last = messages.at(-1);
    if (last?.role === turn.role) last.content!.push({ text: turn.text });
    else messages.push({ role: turn.role, content: [{ text: turn.text }] });
  }
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ text: '(conversation)' }] });
  return messages;
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

function toReply(modelId: string, output: ConverseCommandOutput): ModelReply {
  const stopReason = output.stopReason;
  refuseStop(stopReason);
  const text = (output.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
  if (!text.trim()) throw new ModelError('failed', 'The model returned an empty answer.');
  const reply: ModelReply = { text, model: `bedrock:${modelId}` };
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
