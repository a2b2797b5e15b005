import { randomBytes } from 'node:crypto';
import type { CompletionOutput, CompletionStream, FinishReason } from '../../completion.ts';
import type { ModelUsage, ToolCall } from '../../../models/index.ts';
import { fontesOf } from '../fontes.ts';
import type { ResponsesRequest } from './responses-request.ts';
import { selfContainedMessageId } from './self-contained-ids.ts';

/**
 * OpenAI's Responses answer (docs/openai-compatible-api.md): the `response` object with `output` items (`message` with
 * `output_text` parts, `function_call`) and `usage`, and, streamed, its named Server-Sent Events in the order OpenAI
 * sends them: `response.created`, `response.in_progress`, per item `response.output_item.added` (then for a message
 * `response.content_part.added`, `response.output_text.delta`…, `.done` events; for a call
 * `response.function_call_arguments.delta`…, `.done`), `response.output_item.done`, and last `response.completed` (or
 * `response.incomplete` at the token limit) with the whole `output` and `usage`. No `[DONE]`, as OpenAI.
 */

export interface ResponseIdentity {
  id: string;
  /** Unix seconds. */
  createdAt: number;
}

export const newResponseIdentity = (now = Date.now()): ResponseIdentity => ({
  id: `resp_${randomBytes(16).toString('hex')}`,
  createdAt: Math.floor(now / 1000),
});

const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

const outputText = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });

function messageItem(id: string, text: string, status: 'in_progress' | 'completed') {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content: status === 'completed' ? [outputText(text)] : [],
  };
}

function callItem(id: string, call: ToolCall, status: 'in_progress' | 'completed') {
  return { id, type: 'function_call', status, arguments: call.arguments, call_id: call.id, name: call.name };
}

function usageOf(usage: ModelUsage | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The `response` object around `output`, echoing what the request asked for. */
function responseObject(
  identity: ResponseIdentity,
  request: ResponsesRequest,
  state: {
    status: 'in_progress' | 'completed' | 'incomplete';
    output: unknown[];
    usage?: ModelUsage;
    sources?: { fileName: string; score: number }[];
  },
): Record<string, unknown> {
  const { completion } = request;
  const format = completion.jsonSchema
    ? {
        type: 'json_schema',
        name: completion.jsonSchema.name,
        schema: completion.jsonSchema.schema,
        strict: completion.jsonSchema.strict ?? false,
        ...(completion.jsonSchema.description === undefined ? {} : { description: completion.jsonSchema.description }),
      }
    : { type: completion.responseFormat === 'json' ? 'json_object' : 'text' };
  const choice = completion.toolChoice;
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    error: null,
    incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions,
    max_output_tokens: completion.maxOutputTokens ?? null,
    max_tool_calls: null,
    model: completion.botId,
    output: state.output,
    parallel_tool_calls: completion.parallelToolCalls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: false,
    temperature: completion.temperature ?? 1,
    text: { format, verbosity: completion.parameters.verbosity ?? 'medium' },
    tool_choice:
      choice === undefined ? 'auto' : typeof choice === 'object' ? { type: 'function', name: choice.name } : choice,
    tools: request.toolsEcho,
    top_logprobs: 0,
    top_p: completion.parameters.top_p ?? 1,
    truncation: 'disabled',
    usage: usageOf(state.usage),
    user: completion.parameters.user ?? null,
    metadata: completion.parameters.metadata ?? {},
    ...(state.sources?.length ? { fontes: fontesOf(state.sources) } : {}),
  };
}

const statusOf = (finishReason: FinishReason) => (finishReason === 'length' ? 'incomplete' : 'completed');

/** The non-streamed answer. Its message id carries the text, so an `item_reference` to it resolves statelessly. */
export function responseOf(
  identity: ResponseIdentity,
  request: ResponsesRequest,
  output: CompletionOutput,
): Record<string, unknown> {
  const text = output.responseFormat === 'json' ? JSON.stringify(output.data) : output.text;
  const items: unknown[] = [];
  if (text) items.push(messageItem(selfContainedMessageId(text), text, 'completed'));
  for (const call of output.toolCalls) items.push(callItem(randomId('fc'), call, 'completed'));
  return responseObject(identity, request, {
    status: statusOf(output.finishReason),
    output: items,
    ...(output.usage ? { usage: output.usage } : {}),
    sources: output.sources,
  });
}

/** The streamed answer as OpenAI's named events; a failure after the start ends it with an `error` event. */
export async function* responseEventStream(
  identity: ResponseIdentity,
  request: ResponsesRequest,
  stream: CompletionStream,
  errorBody: (error: unknown) => { code: string | null; message: string; param: string | null },
): AsyncGenerator<string> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const output: Record<string, unknown>[] = [];
  /** The item being streamed: a message's text, or a call's arguments. */
  let open:
    | { kind: 'message'; index: number; id: string; text: string }
    | { kind: 'call'; index: number; id: string; call: ToolCall }
    | undefined;
  const calls = new Map<number, number>();

  function* close(): Generator<string> {
    if (!open) return;
    const { index, id } = open;
    if (open.kind === 'message') {
      const text = open.text;
      yield event('response.output_text.done', {
        item_id: id,
        output_index: index,
        content_index: 0,
        text,
        logprobs: [],
      });
      yield event('response.content_part.done', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: outputText(text),
      });
      const item = messageItem(id, text, 'completed');
      output[index] = item;
      yield event('response.output_item.done', { output_index: index, item });
    } else {
      const call = open.call;
      yield event('response.function_call_arguments.done', {
        item_id: id,
        output_index: index,
        arguments: call.arguments,
      });
      const item = callItem(id, call, 'completed');
      output[index] = item;
      yield event('response.output_item.done', { output_index: index, item });
    }
    open = undefined;
  }

  const start = responseObject(identity, request, { status: 'in_progress', output: [] });
  yield event('response.created', { response: start });
  yield event('response.in_progress', { response: start });
  try {
    for await (const piece of stream.events) {
      switch (piece.type) {
        case 'text': {
          if (open?.kind !== 'message') {
            yield* close();
            const index = output.length;
            open = { kind: 'message', index, id: randomId('msg'), text: '' };
            output.push(messageItem(open.id, '', 'in_progress'));
            yield event('response.output_item.added', {
              output_index: index,
              item: messageItem(open.id, '', 'in_progress'),
            });
            yield event('response.content_part.added', {
              item_id: open.id,
              output_index: index,
              content_index: 0,
              part: outputText(''),
            });
          }
          open.text += piece.text;
          yield event('response.output_text.delta', {
            item_id: open.id,
            output_index: open.index,
            content_index: 0,
            delta: piece.text,
            logprobs: [],
          });
          break;
        }
        case 'tool-call': {
          yield* close();
          const index = output.length;
          const call = { id: piece.id, name: piece.name, arguments: '' };
          open = { kind: 'call', index, id: randomId('fc'), call };
          calls.set(piece.index, index);
          output.push(callItem(open.id, call, 'in_progress'));
          yield event('response.output_item.added', {
            output_index: index,
            item: callItem(open.id, call, 'in_progress'),
          });
          break;
        }
        case 'tool-arguments': {
          if (open?.kind !== 'call' || calls.get(piece.index) !== open.index) break;
          open.call.arguments += piece.text;
          yield event('response.function_call_arguments.delta', {
            item_id: open.id,
            output_index: open.index,
            delta: piece.text,
          });
          break;
        }
        case 'end': {
          yield* close();
          const status = statusOf(piece.finishReason);
          const response = responseObject(identity, request, {
            status,
            output,
            ...(piece.usage ? { usage: piece.usage } : {}),
            sources: stream.sources,
          });
          yield event(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
        }
      }
    }
  } catch (error) {
    yield event('error', { ...errorBody(error) });
  }
}
