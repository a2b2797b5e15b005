import {
  deadlineError,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
} from '../../models/model-provider.ts';

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
 * honour. The request's signal aborts the HTTP call, so a deadline really stops the work.
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
    const model = request.model ?? this.options.defaultModel;
    if (!model)
      throw new ModelError(
        'misconfigured',
        'No model is configured for the OpenAI-compatible provider (set OPENAI_MODEL or name one in the bot).',
      );
    if (request.signal.aborted) throw deadlineError(request.signal.reason);

    let response: Response;
    let raw: string;
    try {
      response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(chatCompletionBody(model, request)),
        signal: request.signal,
      });
      raw = await readCapped(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      if (request.signal.aborted) throw deadlineError(error);
      if (error instanceof ModelError) throw error;
      throw new ModelError('unavailable', 'The model server could not be reached; try again later.', { cause: error });
    }

    if (!response.ok) throw httpFailure(response, raw);
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
    if (!text.trim()) throw new ModelError('failed', 'The model returned an empty answer.');

    const reply: ModelReply = { text, model: `openai:${parsed.model ?? model}` };
    if (choice.finish_reason) reply.stopReason = choice.finish_reason;
    const usage = parsed.usage;
    if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
      reply.usage = { inputTokens: usage.prompt_tokens!, outputTokens: usage.completion_tokens! };
    }
    return reply;
  }
}

interface ChatCompletion {
  model?: string;
  choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** The Chat Completions request body; exported for tests that check what a server receives. */
export function chatCompletionBody(model: string, request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: request.prompt },
    ],
    stream: false,
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: every compatible server understands it.
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.responseFormat === 'json') {
    body.response_format = request.jsonSchema
      ? { type: 'json_schema', json_schema: { name: 'answer', schema: request.jsonSchema, strict: true } }
      : { type: 'json_object' };
  }
  return body;
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
    return new ModelError('rejected', "The prompt and instructions are too long for the model's context window.", {
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
