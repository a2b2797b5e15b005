import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockRuntimeClient } from '#shared/model-providers/adapters/bedrock-client.ts';
import { BedrockModelProvider } from '#shared/model-providers/adapters/bedrock-model.ts';
import type { ModelRequest } from '#shared/models/index.ts';

/**
 * The Bedrock adapter with the real SDK over HTTP against a stand-in that speaks the Converse wire format
 * (restJson1): what goes on the wire, how Bedrock's error answers come back, and that the deadline really aborts
 * the HTTP request. No local Bedrock exists; the stand-in answers what the API reference documents.
 */
type Behaviour = (req: IncomingMessage, res: ServerResponse, body: any) => void;
let server: Server;
let endpoint: string;
let behaviour: Behaviour;
const seen: { path: string; body: any; closedEarly: boolean }[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const entry = {
      path: decodeURIComponent(req.url ?? ''),
      body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
      closedEarly: false,
    };
    seen.push(entry);
    res.on('close', () => {
      if (!res.writableEnded) entry.closedEarly = true;
    });
    behaviour(req, res, entry.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const provider = (requestTimeoutMs = 10_000) =>
  new BedrockModelProvider({
    client: bedrockRuntimeClient({
      region: 'us-east-1',
      requestTimeoutMs,
      endpoint,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    }),
    defaultModelId: 'amazon.nova-lite-v1:0',
  });

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Be brief.',
  prompt: 'Hello',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
    .end(text);
};

describe('Bedrock Converse over the wire', () => {
  it('posts the Converse body to /model/{modelId}/converse and reads text and usage', async () => {
    behaviour = (_req, res) =>
      sendJson(res, 200, {
        output: { message: { role: 'assistant', content: [{ text: 'Hi!' }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 9, outputTokens: 2, totalTokens: 11 },
        metrics: { latencyMs: 50 },
      });
    const reply = await provider().generate(
      request({ model: 'qwen.qwen3-32b-v1:0', responseFormat: 'json', temperature: 0.5 }),
    );
    expect(reply).toMatchObject({ text: 'Hi!', usage: { inputTokens: 9, outputTokens: 2 } });
    const last = seen.at(-1)!;
    expect(last.path).toBe('/model/qwen.qwen3-32b-v1:0/converse');
    expect(last.body).toEqual({
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      inferenceConfig: { temperature: 0.5 },
      outputConfig: {
        textFormat: { type: 'json_schema', structure: { jsonSchema: { name: 'answer', schema: '{"type":"object"}' } } },
      },
    });
  });

  it('maps a throttling answer to a retryable failure, without SDK retries', async () => {
    const before = seen.length;
    behaviour = (_req, res) =>
      sendJson(
        res,
        429,
        { message: 'Too many requests' },
        { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/' },
      );
    await expect(provider().generate(request())).rejects.toMatchObject({ kind: 'throttled', retryable: true });
    expect(seen.length - before).toBe(1);
  });

  it('maps a validation answer about input length to a prompt too long for the context window', async () => {
    behaviour = (_req, res) =>
      sendJson(
        res,
        400,
        { message: 'Input is too long for requested model.' },
        { 'x-amzn-errortype': 'ValidationException' },
      );
    await expect(provider().generate(request())).rejects.toMatchObject({
      kind: 'too-long',
      message: expect.stringMatching(/context window/),
    });
  });

  it('aborts the HTTP request itself when the deadline passes', async () => {
    behaviour = () => {};
    const started = Date.now();
    await expect(provider().generate(request({ signal: AbortSignal.timeout(300) }))).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.at(-1)!.closedEarly).toBe(true);
  });

  it("turns the HTTP handler's own request timeout into an error, not a warning", async () => {
    behaviour = () => {};
    const started = Date.now();
    await expect(provider(400).generate(request())).rejects.toMatchObject({ name: 'ModelError', kind: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
