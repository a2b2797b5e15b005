import { BedrockRuntimeClient, ConverseStreamCommand, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { mockAwsClient } from '#test/support/aws-client-mock.ts';
import { describe, expect, it } from 'vitest';
import { BedrockModelProvider } from '#shared/model-providers/adapters/bedrock-model.ts';
import { OfflineModelProvider } from '#shared/model-providers/adapters/offline-model.ts';
import { OpenAiModelProvider } from '#shared/model-providers/adapters/openai-model.ts';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '#shared/models/index.ts';

/** The streaming call of each model adapter, and the conversation turns they send. */
const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'Be brief.',
  prompt: 'And on Sunday?',
  responseFormat: 'text',
  excerpts: [],
  signal: new AbortController().signal,
  ...overrides,
});
const turns = [
  { role: 'user', text: 'When do you open?' },
  { role: 'assistant', text: 'At 9.' },
  { role: 'user', text: 'And on Sunday?' },
] as const;

async function collect(stream: AsyncIterable<ModelStreamEvent>) {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** An SSE body that sends each event `gapMs` after the previous one, each split in two writes. */
function sseBody(events: string[], gapMs: number) {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = events.shift();
      if (next === undefined) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      // Split inside the event: the parser must join the pieces of one event.
      const half = Math.floor(next.length / 2);
      controller.enqueue(encoder.encode(next.slice(0, half)));
      controller.enqueue(encoder.encode(next.slice(half)));
    },
  });
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ model: 'm1-2026', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

describe('OpenAiModelProvider.stream', () => {
  it('posts stream: true with the turns and yields each delta as its event arrives, usage at the end', async () => {
    const body = sseBody(
      [
        chunk({ role: 'assistant', content: 'Closed ' }),
        chunk({ content: 'on Sunday.' }),
        `data: ${JSON.stringify({ model: 'm1-2026', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 4 } })}\n\n`,
        'data: [DONE]\n\n',
      ],
      150,
    );
    let sent: any;
    const provider = new OpenAiModelProvider({
      baseUrl: 'http://models.test/v1',
      defaultModel: 'm1',
      fetch: (async (_url: string, init: RequestInit) => {
        sent = JSON.parse(String(init.body));
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      }) as unknown as typeof fetch,
    });
    const started = Date.now();
    const arrivals: number[] = [];
    const events: ModelStreamEvent[] = [];
    for await (const event of provider.stream(request({ turns: [...turns] }))) {
      arrivals.push(Date.now() - started);
      events.push(event);
    }
    expect(events).toEqual([
      { type: 'text', text: 'Closed ' },
      { type: 'text', text: 'on Sunday.' },
      { type: 'end', model: 'openai:m1-2026', stopReason: 'stop', usage: { inputTokens: 12, outputTokens: 4 } },
    ]);
    // Each piece as its event arrived (150 ms apart), not when the stream ended (750 ms).
    expect(arrivals[0]!).toBeLessThan(arrivals[2]! - 300);
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'When do you open?' },
      { role: 'assistant', content: 'At 9.' },
      { role: 'user', content: 'And on Sunday?' },
    ]);
  });

  it('maps an error answer before the stream, and an error event inside it, to ModelErrors', async () => {
    const answering = (response: () => Response) =>
      new OpenAiModelProvider({
        baseUrl: 'http://models.test/v1',
        defaultModel: 'm1',
        fetch: (async () => response()) as unknown as typeof fetch,
      });
    await expect(
      collect(
        answering(() => new Response('{"error":{"code":"context_length_exceeded"}}', { status: 400 })).stream(
          request(),
        ),
      ),
    ).rejects.toMatchObject({ name: 'ModelError', kind: 'too-long' });
    await expect(
      collect(
        answering(() => new Response('busy', { status: 429, headers: { 'retry-after': '3' } })).stream(request()),
      ),
    ).rejects.toMatchObject({ kind: 'throttled', retryAfterSeconds: 3 });
    const failing = answering(
      () =>
        new Response(`${chunk({ content: 'Hi' })}data: {"error":{"message":"boom"}}\n\n`, {
          headers: { 'content-type': 'text/event-stream' },
        }),
    );
    const seen: ModelStreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of failing.stream(request())) seen.push(event);
      })(),
    ).rejects.toMatchObject({ kind: 'failed' });
    expect(seen).toEqual([{ type: 'text', text: 'Hi' }]);
  });

  it('a server that ignores stream: true and answers JSON still gives the answer', async () => {
    const provider = new OpenAiModelProvider({
      baseUrl: 'http://models.test/v1',
      defaultModel: 'm1',
      fetch: (async () =>
        Response.json({
          model: 'm1',
          choices: [{ message: { content: 'Whole.' }, finish_reason: 'length' }],
        })) as unknown as typeof fetch,
    });
    expect(await collect(provider.stream(request()))).toEqual([
      { type: 'text', text: 'Whole.' },
      { type: 'end', model: 'openai:m1', stopReason: 'length' },
    ]);
  });

  it('aborting the signal mid-stream stops it with a timeout failure', async () => {
    const controller = new AbortController();
    const provider = new OpenAiModelProvider({
      baseUrl: 'http://models.test/v1',
      defaultModel: 'm1',
      fetch: (async (_url: string, init: RequestInit) => {
        const body = sseBody([chunk({ content: 'a' }), chunk({ content: 'b' }), chunk({ content: 'c' })], 100);
        init.signal?.addEventListener('abort', () => body.cancel().catch(() => {}));
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      }) as unknown as typeof fetch,
    });
    const seen: ModelStreamEvent[] = [];
    const run = (async () => {
      for await (const event of provider.stream(request({ signal: controller.signal }))) {
        seen.push(event);
        controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ kind: 'timeout' });
    expect(seen).toEqual([{ type: 'text', text: 'a' }]);
  });
});

describe('BedrockModelProvider.stream', () => {
  const bedrock = mockAwsClient(BedrockRuntimeClient);
  const provider = () =>
    new BedrockModelProvider({
      client: new BedrockRuntimeClient({ region: 'us-east-1' }),
      defaultModelId: 'amazon.nova-lite-v1:0',
    });

  async function* events(list: Record<string, unknown>[]) {
    for (const event of list) yield event;
  }

  it('sends ConverseStream with the turns and yields the text deltas, then stop reason and usage', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Closed ' } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'on Sunday.' } } },
        { messageStop: { stopReason: 'max_tokens' } },
        { metadata: { usage: { inputTokens: 30, outputTokens: 5, totalTokens: 35 } } },
      ]) as never,
    });
    expect(await collect(provider().stream(request({ turns: [...turns], temperature: 1.6 })))).toEqual([
      { type: 'text', text: 'Closed ' },
      { type: 'text', text: 'on Sunday.' },
      {
        type: 'end',
        model: 'bedrock:amazon.nova-lite-v1:0',
        stopReason: 'max_tokens',
        usage: { inputTokens: 30, outputTokens: 5 },
      },
    ]);
    const input = bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input;
    expect(input.system).toEqual([{ text: 'Be brief.' }]);
    expect(input.inferenceConfig?.temperature).toBe(1);
    expect(input.messages).toEqual([
      { role: 'user', content: [{ text: 'When do you open?' }] },
      { role: 'assistant', content: [{ text: 'At 9.' }] },
      { role: 'user', content: [{ text: 'And on Sunday?' }] },
    ]);
    expect(bedrock.commandCalls(ConverseCommand)).toHaveLength(0);
  });

  it('joins consecutive turns of one role, as Converse requires alternation', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { contentBlockDelta: { delta: { text: 'ok' } } },
        { messageStop: { stopReason: 'end_turn' } },
      ]) as never,
    });
    await collect(
      provider().stream(
        request({
          turns: [
            { role: 'user', text: 'one' },
            { role: 'user', text: 'two' },
          ],
        }),
      ),
    );
    expect(bedrock.commandCalls(ConverseStreamCommand)[0]!.args[0].input.messages).toEqual([
      { role: 'user', content: [{ text: 'one' }, { text: 'two' }] },
    ]);
  });

  it('an exception inside the stream, after text, is a ModelError of its kind', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { contentBlockDelta: { delta: { text: 'Clo' } } },
        { throttlingException: { message: 'slow down' } },
      ]) as never,
    });
    await expect(collect(provider().stream(request()))).rejects.toMatchObject({
      name: 'ModelError',
      kind: 'throttled',
    });
  });

  it('a context window overflow reported as the stop reason is too-long', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events([
        { contentBlockDelta: { delta: { text: 'x' } } },
        { messageStop: { stopReason: 'model_context_window_exceeded' } },
      ]) as never,
    });
    await expect(collect(provider().stream(request()))).rejects.toMatchObject({ kind: 'too-long' });
  });
});

describe('OfflineModelProvider.stream', () => {
  it('yields the same answer as generate, a word at a time', async () => {
    const offline: ModelProvider = new OfflineModelProvider();
    const whole = await offline.generate(request());
    const events = await collect(offline.stream(request()));
    const texts = events.flatMap((e) => (e.type === 'text' ? [e.text] : []));
    expect(texts.length).toBeGreaterThan(5);
    expect(texts.join('')).toBe(whole.text);
    expect(events.at(-1)).toEqual({ type: 'end', model: 'offline', stopReason: 'end_turn', usage: whole.usage });
  });
});
