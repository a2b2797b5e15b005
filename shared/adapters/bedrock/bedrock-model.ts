import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  deadlineError,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
} from '../../models/model-provider.ts';

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
 * Amazon Bedrock through the Converse API (one API for every model family). The request's signal is passed as the
 * SDK's `abortSignal`, so the deadline aborts the HTTP call itself. Bedrock's error types are mapped to what the
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
    if (request.signal.aborted) throw deadlineError(request.signal.reason);
    let schema = this.nativeJsonSchema(modelId, request);
    let inlineSystem = this.noSystemPrompt.has(modelId);
    // A model that refuses one of our choices does so with a ValidationException before generating anything, so
    // adapting and asking again costs one quick round trip, at most twice, and is remembered for the next call.
    for (let attempt = 0; ; attempt++) {
      try {
        return toReply(
          modelId,
          await this.converse(converseInput(modelId, request, schema, { inlineSystem }), request.signal),
        );
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

  private converse(input: ConverseCommandInput, signal: AbortSignal): Promise<ConverseCommandOutput> {
    return this.options.client.send(new ConverseCommand(input), { abortSignal: signal });
  }
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
  const input: ConverseCommandInput = options.inlineSystem
    ? { modelId, messages: [{ role: 'user', content: [{ text: `${request.system}\n\n${request.prompt}` }] }] }
    : {
        modelId,
        system: [{ text: request.system }],
        messages: [{ role: 'user', content: [{ text: request.prompt }] }],
      };
  const inference: NonNullable<ConverseCommandInput['inferenceConfig']> = {};
  if (request.temperature !== undefined) inference.temperature = request.temperature;
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

function toReply(modelId: string, output: ConverseCommandOutput): ModelReply {
  const stopReason = output.stopReason;
  if (stopReason === 'content_filtered' || stopReason === 'guardrail_intervened') {
    throw new ModelError('rejected', "The model's content filter blocked the answer.");
  }
  if (stopReason === 'model_context_window_exceeded') {
    throw new ModelError('rejected', "The prompt and instructions are too long for the model's context window.");
  }
  if (stopReason === 'malformed_model_output') throw new ModelError('failed', 'The model produced a malformed answer.');
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
        return new ModelError('rejected', "The prompt and instructions are too long for the model's context window.", {
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
