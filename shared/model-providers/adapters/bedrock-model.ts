import {
  ConverseCommand,
  ConverseStreamCommand,
  type BedrockRuntimeClient,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import {
  deadlineError,
  ModelError,
  type JsonSchemaFormat,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelUsage,
  type ToolCall,
} from '../../models/index.ts';
import { answerToolOf, converseInput, OPEN_JSON_SCHEMA, supportsStructuredOutput } from './bedrock-converse.ts';
import {
  isSchemaRefusal,
  isSystemPromptRefusal,
  mapBedrockError,
  refuseStop,
  streamedException,
} from './bedrock-errors.ts';

export interface BedrockModelOptions {
  client: BedrockRuntimeClient;
  /** `BEDROCK_MODEL_ID`: used when the request names no model. */
  defaultModelId: string;
}

/**
 * Amazon Bedrock through the Converse API (one API for every model family), and ConverseStream when the answer is
 * streamed. The request's signal is passed as the SDK's `abortSignal`, so the deadline aborts the HTTP call itself.
 * The request's mapping is ./bedrock-converse.ts, what Bedrock's refusals and failures mean ./bedrock-errors.ts.
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
