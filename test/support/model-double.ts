import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { inject } from 'vitest';
import { listenLocal } from './listen.ts';

export interface ReceivedChatRequest {
  headers: IncomingHttpHeaders;
  path: string;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format?: { type: string };
    temperature?: number;
    [key: string]: unknown;
  };
  /** The system message the server received. */
  system: string;
  /** The user message the server received. */
  prompt: string;
}

/** What a model double shows a test: where it listens, and the requests it recorded. */
export interface ModelServer<Recorded extends { prompt: string }> {
  /** Base URL to use as OPENAI_BASE_URL (includes `/v1`). */
  baseUrl: string;
  received: Recorded[];
  /** Requests whose client went away before the answer ended (the service aborted the call). */
  abandoned: Recorded[];
  /** The requests whose last user message contains `marker`. */
  find(marker: string): Recorded[];
  close(): Promise<void>;
}

/** Listens with a model double's `server` on a free local port; its face over the requests it records. */
export async function serveModel<Recorded extends { prompt: string }>(
  server: Server,
  received: Recorded[],
  abandoned: Recorded[],
): Promise<ModelServer<Recorded>> {
  const local = await listenLocal(server);
  return {
    baseUrl: `${local.baseUrl}/v1`,
    received,
    abandoned,
    find: (marker) => received.filter((r) => r.prompt.includes(marker)),
    close: local.close,
  };
}

export type ModelDouble = ModelServer<ReceivedChatRequest>;

/**
 * An OpenAI-compatible Chat Completions server for tests. What it does is chosen by a directive in the user
 * message, so concurrent requests stay independent:
 * - (none): a normal answer, `Echo: <prompt>`, with usage;
 * - `#json`: `{"answer":42,"ok":true}`; `#fenced`: the same inside a Markdown ```json fence;
 * - `#badjson`: `this is {not json`; `#garbage`: HTTP 200 whose body is not JSON;
 * - `#fail`: HTTP 500; `#busy`: HTTP 429 with `Retry-After: 7`; `#empty`: an empty message;
 * - `#hang`: never answers (until the client goes away); `#slow=<ms>`: answers after that long;
 * - `#toolong`: HTTP 400 `context_length_exceeded`, as OpenAI answers a prompt over the model's context.
 * With `stream: true` the answer is sent as Server-Sent Events, a word per chunk (usage last with
 * `stream_options.include_usage`), and two more directives apply:
 * - `#drip=<ms>`: each chunk, the first included, is sent that long after the previous one;
 * - `#stall`: the first chunk at once, then nothing until the client goes away;
 * - `#breakoff`: the first chunk, then the connection is cut (a model server failing mid-answer).
 * Directives are read from the last user message, the one a conversation ends with.
 */
export async function startModelDouble(): Promise<ModelDouble> {
  const received: ReceivedChatRequest[] = [];
  const abandoned: ReceivedChatRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'GET' && req.url?.startsWith('/__')) return control(req.url, res);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedChatRequest['body'];
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const prompt = body.messages.findLast((m) => m.role === 'user')?.content ?? '';
    const request: ReceivedChatRequest = { headers: req.headers, path: req.url, body, system, prompt };
    received.push(request);
    res.on('close', () => {
      if (!res.writableEnded) abandoned.push(request);
    });

    const directive = /#(\w+)(?:=(\d+))?/.exec(prompt);
    if (body.stream === true && !['garbage', 'fail', 'busy', 'hang', 'toolong'].includes(directive?.[1] ?? '')) {
      const content = directive?.[1] === 'json' ? '{"answer":42,"ok":true}' : `Echo: ${prompt}`;
      return streamAnswer(res, body, content, {
        dripMs: directive?.[1] === 'drip' ? Number(directive[2] ?? 50) : 0,
        stall: directive?.[1] === 'stall',
        breakOff: directive?.[1] === 'breakoff',
      });
    }
    switch (directive?.[1]) {
      case undefined:
        return answer(res, body.model, `Echo: ${prompt}`);
      case 'json':
        return answer(res, body.model, '{"answer":42,"ok":true}');
      case 'fenced':
        return answer(res, body.model, '```json\n{"answer":42,"ok":true}\n```');
      case 'badjson':
        return answer(res, body.model, 'this is {not json');
      case 'empty':
        return answer(res, body.model, '');
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops</html>');
        return;
      case 'fail':
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"internal stack trace: secret.py line 3"}}');
        return;
      case 'busy':
        res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
          .end('{"error":{"message":"rate limited"}}');
        return;
      case 'hang':
        return;
      case 'toolong':
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: {
              message:
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
              type: 'invalid_request_error',
              param: 'messages',
              code: 'context_length_exceeded',
            },
          }),
        );
        return;
      case 'slow':
        setTimeout(() => answer(res, body.model, `Slow echo: ${prompt}`), Number(directive[2] ?? 500));
        return;
      default:
        return answer(res, body.model, `Echo: ${prompt}`);
    }
  });
  /** What test files in other processes ask of a shared double: `/__requests|__abandoned?marker=…`, `/__count`. */
  function control(url: string, res: ServerResponse): void {
    const { pathname, searchParams } = new URL(url, 'http://double');
    const marker = searchParams.get('marker') ?? '';
    const pick = (list: ReceivedChatRequest[]) => list.filter((r) => r.prompt.includes(marker));
    const body =
      pathname === '/__requests'
        ? pick(received)
        : pathname === '/__abandoned'
          ? pick(abandoned)
          : pathname === '/__count'
            ? { count: received.length }
            : undefined;
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
  return serveModel(server, received, abandoned);
}

function answer(res: ServerResponse, model: string, content: string): void {
  if (res.destroyed) return;
  const body = JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** How long `#stall` holds a stream open at most (a test that needs the client to go away does so long before). */
const STALL_LIMIT_MS = 20_000;

/** The answer as OpenAI streams it: `chat.completion.chunk` events, a word each, then usage if asked, then [DONE]. */
async function streamAnswer(
  res: ServerResponse,
  body: ReceivedChatRequest['body'],
  content: string,
  options: { dripMs: number; stall: boolean; breakOff: boolean },
): Promise<void> {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices, ...extra })}\n\n`;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = content.match(/\s*\S+\s*/g) ?? [content];
  for (const [i, piece] of pieces.entries()) {
    if (options.dripMs > 0) await pause(options.dripMs);
    if (res.destroyed) return;
    const delta = i === 0 ? { role: 'assistant', content: piece } : { content: piece };
    res.write(chunk([{ index: 0, delta, finish_reason: null }]));
    if (options.stall) {
      // Bounded, so that a service that failed to abort cannot hold the double (and the test file's close) forever.
      const giveUp = setTimeout(() => res.end(), STALL_LIMIT_MS);
      res.on('close', () => clearTimeout(giveUp));
      return;
    }
    if (options.breakOff) {
      setTimeout(() => res.destroy(), 20);
      return;
    }
  }
  if (res.destroyed) return;
  res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage)
    res.write(
      chunk([], { usage: { prompt_tokens: 11, completion_tokens: pieces.length, total_tokens: 11 + pieces.length } }),
    );
  res.end('data: [DONE]\n\n');
}

/** A model double another process started (a group's global setup), asked over its control endpoints. */
export interface SharedModelDouble {
  baseUrl: string;
  /** The requests whose last user message contains `marker`. */
  find(marker: string): Promise<ReceivedChatRequest[]>;
  /** Those whose client went away before an answer was sent. */
  abandoned(marker: string): Promise<ReceivedChatRequest[]>;
  /** How many requests it has received in all (from every file of the group). */
  count(): Promise<number>;
}

/** The group's model double (test/support/groups/*.ts provide `modelDouble`). */
export function sharedModelDouble(): SharedModelDouble {
  const baseUrl = inject('modelDouble');
  const root = baseUrl.replace(/\/v1$/, '');
  const get = async (path: string) => (await fetch(`${root}${path}`)).json();
  return {
    baseUrl,
    find: async (marker) => (await get(`/__requests?marker=${encodeURIComponent(marker)}`)) as ReceivedChatRequest[],
    abandoned: async (marker) =>
      (await get(`/__abandoned?marker=${encodeURIComponent(marker)}`)) as ReceivedChatRequest[],
    count: async () => ((await get('/__count')) as { count: number }).count,
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The group's OpenAI-compatible model double (its base URL, with `/v1`). */
    modelDouble: string;
  }
}
