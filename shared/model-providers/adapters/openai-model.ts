import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  deadlineError,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
  type ToolCall,
} from '../../models/index.ts';
import { chatCompletionBody } from './openai-request.ts';

/** Largest model-server answer read into memory; a bigger one is a failure, not an out-of-memory crash. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Used when a 429 or 503 carries no usable Retry-After. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

export interface OpenAiModelOptions {
  /** Base URL including the API version segment: `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  apiKey?: string;
  /** Model used when the request names none (`OPENAI_MODEL`). */
  defaultModel?: string;
  fetch?: typeof fetch;
}

/**
 * Any OpenAI-compatible Chat Completions server (OpenAI, Azure-style gateways, Ollama, vLLM, llama.cpp server):
 * `POST {baseUrl}/chat/completions` with a system and a user message. JSON answers are asked for with
 * `response_format: { type: "json_object" }` (or `json_schema` when a schema is given), which all of those servers
 * honour. The request's signal aborts the HTTP call, so a deadline really stops the work. Streamed (`stream: true`),
 * the server's Server-Sent Events are parsed with eventsource-parser and each content delta is yielded as it arrives.
 */
export class OpenAiModelProvider implements ModelProvider {
  readonly name = 'openai';
  private readonly endpoint: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiModelOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async generate(request: ModelRequest): Promise<ModelReply> {
    const model = this.modelFor(request);
    let response: Response;
    let raw: string;
    try {
      response = await this.post(model, request, false);
      raw = await readCapped(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      throw this.callFailure(error, request.signal);
    }
    if (!response.ok) throw httpFailure(response, raw);
    return toReply(raw, model);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const model = this.modelFor(request);
    let response: Response;
    try {
      response = await this.post(model, request, true);
    } catch (error) {
      throw this.callFailure(error, request.signal);
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!response.ok || !contentType.includes('text/event-stream')) {
      // An error, or a server that ignored `stream: true` and answered one JSON completion: read it whole.
      let raw: string;
      try {
        raw = await readCapped(response, MAX_RESPONSE_BYTES);
      } catch (error) {
        throw this.callFailure(error, request.signal);
      }
      if (!response.ok) throw httpFailure(response, raw);
      const reply = toReply(raw, model);
      if (reply.text) yield { type: 'text', text: reply.text };
      for (const [index, call] of (reply.toolCalls ?? []).entries()) {
        yield { type: 'tool-call', index, id: call.id, name: call.name };
        yield { type: 'tool-arguments', index, text: call.arguments };
      }
      yield endOf(reply);
      return;
    }
    yield* streamedReply(response, model, request.signal, (error) => this.callFailure(error, request.signal));
  }

  private modelFor(request: ModelRequest): string {
    const model = request.model ?? this.options.defaultModel;
    if (!model)
      throw new ModelError(
        'misconfigured',
        'No model is configured for the OpenAI-compatible provider (set OPENAI_MODEL or name one in the bot).',
      );
    if (request.signal.aborted) throw deadlineError(request.signal.reason);
    return model;
  }

  private post(model: string, request: ModelRequest, stream: boolean): Promise<Response> {
    return this.fetch(this.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify(chatCompletionBody(model, request, { stream })),
      signal: request.signal,
    });
  }

  private callFailure(error: unknown, signal: AbortSignal): ModelError {
    if (signal.aborted) return deadlineError(error);
    if (error instanceof ModelError) return error;
    return new ModelError('unavailable', 'The model server could not be reached; try again later.', { cause: error });
  }
}

function toReply(raw: string, model: string): ModelReply {
  let parsed: ChatCompletion;
  try {
    parsed = JSON.parse(raw) as ChatCompletion;
  } catch (cause) {
    throw new ModelError('failed', 'The model server answered something that is not a chat completion.', { cause });
  }
  const choice = parsed?.choices?.[0];
  const message = choice?.message;
  if (!message)
    throw new ModelError('failed', 'The model server answered without a message.', { cause: raw.slice(0, 200) });
  if (typeof message.refusal === 'string' && message.refusal)
    throw new ModelError('rejected', 'The model refused to answer this prompt.');
  if (choice.finish_reason === 'content_filter')
    throw new ModelError('rejected', "The model's content filter blocked the answer.");
  const text = contentText(message.content);
  const toolCalls = toolCallsOf(message.tool_calls);
  if (!text.trim() && toolCalls.length === 0) throw new ModelError('failed', 'The model returned an empty answer.');

  const reply: ModelReply = { text, model: `openai:${parsed.model ?? model}` };
  if (toolCalls.length > 0) reply.toolCalls = toolCalls;
  if (choice.finish_reason) reply.stopReason = choice.finish_reason;
  const usage = parsed.usage;
  if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
    reply.usage = { inputTokens: usage.prompt_tokens!, outputTokens: usage.completion_tokens! };
  }
  return reply;
}

const endOf = (reply: ModelReply): ModelStreamEvent => ({
  type: 'end',
  model: reply.model,
  ...(reply.usage ? { usage: reply.usage } : {}),
  ...(reply.stopReason ? { stopReason: reply.stopReason } : {}),
});

/** The calls of a whole answer; a call without a name is not one (some servers send empty placeholders). */
function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  const calls: ToolCall[] = [];
  for (const [i, item] of value.entries()) {
    const fn = (item as { function?: { name?: unknown; arguments?: unknown } })?.function;
    if (typeof fn?.name !== 'string' || !fn.name) continue;
    const id = (item as { id?: unknown }).id;
    calls.push({
      id: typeof id === 'string' && id ? id : `call_${i}`,
      name: fn.name,
      arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    });
  }
  return calls;
}

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatCompletionChunk {
  model?: string;
  choices?: {
    delta?: { content?: unknown; refusal?: unknown; tool_calls?: ChunkToolCall[] };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

/**
 * The events of a streamed chat completion: `data: <chunk JSON>` until `data: [DONE]`. Text is yielded as each
 * event is parsed; usage arrives in the last chunk (`stream_options.include_usage`). Leaving the iteration early
 * cancels the response body, which closes the connection.
 */
async function* streamedReply(
  response: Response,
  model: string,
  signal: AbortSignal,
  failure: (error: unknown) => ModelError,
): AsyncGenerator<ModelStreamEvent> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let answered = model;
  let stopReason: string | undefined;
  let usage: ModelReply['usage'];
  let size = 0;
  let sawText = false;
  let done = false;
  // The server's call index → ours (0, 1, 2… in the order calls started): servers may number them otherwise.
  const calls = new Map<number, number>();
  try {
    while (!done) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        throw failure(error);
      }
      // A body that keeps flowing after the abort (some fetch implementations) must not yield more text.
      if (signal.aborted) throw failure(signal.reason);
      if (read.done) break;
      size += read.value.byteLength;
      if (size > MAX_RESPONSE_BYTES)
        throw new ModelError('failed', 'The model server answered more than the service accepts.');
      parser.feed(decoder.decode(read.value, { stream: true }));
      for (const event of events.splice(0)) {
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        let chunk: ChatCompletionChunk;
        try {
          chunk = JSON.parse(event.data) as ChatCompletionChunk;
        } catch {
          throw new ModelError('failed', 'The model server streamed something that is not a chat completion.', {
            cause: event.data.slice(0, 200),
          });
        }
        if (chunk.error) {
          throw new ModelError('failed', 'The model server failed while streaming the answer.', {
            cause: chunk.error.message?.slice(0, 300),
          });
        }
        if (chunk.model) answered = chunk.model;
        const choice = chunk.choices?.[0];
        if (typeof choice?.delta?.refusal === 'string' && choice.delta.refusal)
          throw new ModelError('rejected', 'The model refused to answer this prompt.');
        if (choice?.finish_reason === 'content_filter')
          throw new ModelError('rejected', "The model's content filter blocked the answer.");
        if (choice?.finish_reason) stopReason = choice.finish_reason;
        const text = contentText(choice?.delta?.content);
        if (text) {
          sawText ||= text.trim().length > 0;
          yield { type: 'text', text };
        }
        for (const [position, piece] of (choice?.delta?.tool_calls ?? []).entries()) {
          const key = typeof piece.index === 'number' ? piece.index : position;
          let index = calls.get(key);
          if (index === undefined) {
            if (!piece.function?.name) continue;
            index = calls.size;
            calls.set(key, index);
            yield { type: 'tool-call', index, id: piece.id || `call_${index}`, name: piece.function.name };
          }
          const args = piece.function?.arguments;
          if (typeof args === 'string' && args) yield { type: 'tool-arguments', index, text: args };
        }
        const u = chunk.usage;
        if (u && Number.isFinite(u.prompt_tokens) && Number.isFinite(u.completion_tokens)) {
          usage = { inputTokens: u.prompt_tokens!, outputTokens: u.completion_tokens! };
        }
      }
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
  if (signal.aborted) throw failure(signal.reason);
  if (!sawText && calls.size === 0) throw new ModelError('failed', 'The model returned an empty answer.');
  yield {
    type: 'end',
    model: `openai:${answered}`,
    ...(usage ? { usage } : {}),
    ...(stopReason ? { stopReason } : {}),
  };
}

interface ChatCompletion {
  model?: string;
  choices?: {
    message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** `content` is a string on every server we target; tolerate the array-of-parts form some gateways return. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

async function readCapped(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel();
    throw new ModelError('failed', 'The model server answered more than the service accepts.');
  }
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new ModelError('failed', 'The model server answered more than the service accepts.');
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function httpFailure(response: Response, raw: string): ModelError {
  const status = response.status;
  // The server's error text (not the request) for the log; clipped, since some servers quote the input back.
  const cause = { status, body: raw.slice(0, 300) };
  if (status === 429 || status === 503) {
    return new ModelError(status === 429 ? 'throttled' : 'unavailable', 'The model service is busy; try again later.', {
      cause,
      retryAfterSeconds: retryAfter(response.headers.get('retry-after')),
    });
  }
  if (status === 408 || status === 504)
    return new ModelError('unavailable', 'The model service timed out; try again later.', { cause });
  if (status >= 500)
    return new ModelError('unavailable', `The model service failed (HTTP ${status}); try again later.`, { cause });
  if (status === 401 || status === 403 || status === 404) {
    return new ModelError('misconfigured', 'The model is not available to this deployment.', { cause });
  }
  if (/context[_ ]length|maximum context|too many tokens|too long/i.test(raw)) {
    return new ModelError('too-long', "The prompt and instructions are too long for the model's context window.", {
      cause,
    });
  }
  return new ModelError('rejected', `The model server rejected the request (HTTP ${status}).`, { cause });
}

function retryAfter(header: string | null): number {
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(3600, Math.ceil(seconds));
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.min(3600, Math.max(1, Math.ceil((at - Date.now()) / 1000)));
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}
