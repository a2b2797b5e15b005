import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface ModelDouble {
  /** Base URL to use as OPENAI_BASE_URL (includes `/v1`). */
  baseUrl: string;
  received: ReceivedChatRequest[];
  /** Requests whose client went away before an answer was sent (the service aborted the call). */
  abandoned: ReceivedChatRequest[];
  /** The requests whose user message contains `marker`. */
  find(marker: string): ReceivedChatRequest[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible Chat Completions server for tests. What it does is chosen by a directive in the user
 * message, so concurrent requests stay independent:
 * - (none): a normal answer, `Echo: <prompt>`, with usage;
 * - `#json`: `{"answer":42,"ok":true}`; `#fenced`: the same inside a Markdown ```json fence;
 * - `#badjson`: `this is {not json`; `#garbage`: HTTP 200 whose body is not JSON;
 * - `#fail`: HTTP 500; `#busy`: HTTP 429 with `Retry-After: 7`; `#empty`: an empty message;
 * - `#hang`: never answers (until the client goes away); `#slow=<ms>`: answers after that long.
 */
export async function startModelDouble(): Promise<ModelDouble> {
  const received: ReceivedChatRequest[] = [];
  const abandoned: ReceivedChatRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedChatRequest['body'];
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const request: ReceivedChatRequest = { headers: req.headers, path: req.url, body, system, prompt };
    received.push(request);
    res.on('close', () => {
      if (!res.writableEnded) abandoned.push(request);
    });

    const directive = /#(\w+)(?:=(\d+))?/.exec(prompt);
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
      case 'slow':
        setTimeout(() => answer(res, body.model, `Slow echo: ${prompt}`), Number(directive[2] ?? 500));
        return;
      default:
        return answer(res, body.model, `Echo: ${prompt}`);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    abandoned,
    find: (marker) => received.filter((r) => r.prompt.includes(marker)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
