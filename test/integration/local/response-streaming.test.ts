import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenGateway } from '#test/support/gateway.ts';
import type { ProxyHandler } from '#local/gateway.ts';
import { installLambdaStreamingGlobals, type LocalResponseStream } from '#local/response-streaming.ts';

/**
 * The local stand-in for Lambda response streaming behind the REST API: a handler wrapped with
 * `awslambda.streamifyResponse` writes the HttpResponseStream prelude then its body, and the gateway sends each
 * write as it happens; a client that goes away destroys the handler's stream.
 */
installLambdaStreamingGlobals();
const runtime = (globalThis as unknown as { awslambda: any }).awslambda;

let closedEarly = false;
const streaming = runtime.streamifyResponse(
  async (event: { headers: Record<string, string> }, stream: LocalResponseStream) => {
    const out = runtime.HttpResponseStream.from(stream, {
      statusCode: 201,
      headers: { 'content-type': 'text/event-stream', 'x-test': 'yes' },
    });
    const pieces = event.headers['x-endless'] ? 1_000 : 3;
    // As middy does: the prelude is flushed with an empty write before the body is known.
    out.write('');
    if (event.headers['x-slow-first']) await new Promise((resolve) => setTimeout(resolve, 400));
    stream.on('close', () => {
      if (!stream.writableFinished) closedEarly = true;
    });
    for (let i = 0; i < pieces && !stream.destroyed; i++) {
      out.write(`data: ${i}\n\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!stream.destroyed) out.end();
  },
);

const starting = listenGateway({
  handlers: {
    'chat-completions': streaming as unknown as ProxyHandler,
    fallback: async () => ({ statusCode: 404, body: '' }),
  },
});
let base = '';
let close: () => Promise<void>;
beforeAll(async () => {
  ({ base, close } = await starting);
});
afterAll(async () => {
  await close();
});

describe('local gateway: streamed responses', () => {
  it('sends the prelude as the status and headers, then each write as it happens', async () => {
    const started = Date.now();
    const res = await fetch(`${base}/api/v1/ai/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-test')).toBe('yes');
    const reader = res.body!.getReader();
    const arrivals: { at: number; text: string }[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ at: Date.now() - started, text: new TextDecoder().decode(value) });
    }
    expect(arrivals.map((a) => a.text).join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    // The first write was not held back until the handler finished (about 300 ms).
    expect(arrivals[0]!.at).toBeLessThan(arrivals.at(-1)!.at - 150);
  });

  it('sends the status line at once when the first piece is slow to come', async () => {
    const started = Date.now();
    const res = await fetch(`${base}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { 'x-slow-first': '1' },
      body: '{}',
    });
    const headersAt = Date.now() - started;
    expect(res.status).toBe(201);
    const text = await res.text();
    const endAt = Date.now() - started;
    expect(text).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    // The status came before the 400 ms wait for the first piece, not with it.
    expect(headersAt).toBeLessThan(endAt - 450);
  });

  it('a client that disconnects destroys the handler’s stream', async () => {
    closedEarly = false;
    const controller = new AbortController();
    const res = await fetch(`${base}/api/v1/ai/chat/completions`, {
      method: 'POST',
      headers: { 'x-endless': '1' },
      body: '{}',
      signal: controller.signal,
    });
    await res.body!.getReader().read();
    controller.abort();
    const deadline = Date.now() + 3_000;
    while (!closedEarly && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(closedEarly).toBe(true);
  });
});
