import { describe, expect, it } from 'vitest';
import type { Bot } from '#shared/bots/index.ts';
import { sourcesOf } from '#shared/completion/answer.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import type { CompletionInput } from '#shared/completion/completion.ts';
import type { KnowledgeExcerpt } from '#shared/knowledge/index.ts';
import { ModelError, type ModelProvider, type ModelRequest, type ModelStreamEvent } from '#shared/models/index.ts';
import { MemoryCreditLedger } from '#test/support/fakes/memory-credit-ledger.ts';
import { asHttpError } from '#shared/http/domain-errors.ts';

/**
 * The use case with turns and with the model's streaming call: the same charge / settle / refund rules as the whole
 * answer, with the extra exits a stream has (a failure after the first piece, a caller who goes away).
 */
const bot: Bot = {
  botId: 'bot_1',
  projectId: 'prj_1',
  name: 'Support',
  instructions: 'You answer questions about the store.',
  temperature: 0.3,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  knowledge: { version: 0, segments: [] },
};

const excerpts: KnowledgeExcerpt[] = [
  { text: 'We open at 9.', fileName: 'hours.md', score: 0.9 },
  { text: 'Returns within 30 days.', fileName: 'returns.pdf', score: 0.5 },
  { text: 'Sundays closed.', fileName: 'hours.md', score: 0.7 },
];

type Script = (request: ModelRequest) => AsyncIterable<ModelStreamEvent>;

function setup(script: Script, balance = 3) {
  const ledger = new MemoryCreditLedger(balance);
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    name: 'scripted',
    generate: async () => {
      throw new Error('not used');
    },
    stream: (request) => {
      requests.push(request);
      return script(request);
    },
  };
  const completion = makeCompleteText({
    bots: { get: async (id) => (id === bot.botId ? bot : undefined) },
    knowledge: { search: async () => excerpts },
    credits: ledger,
    models: { resolve: () => ({ provider }) },
    maxOutputTokens: 4096,
    log: { warn: () => {}, error: () => {} },
  });
  const input = (overrides: Partial<CompletionInput> = {}): CompletionInput => ({
    caller: { projectId: 'prj_1', monthlyBotCredits: balance },
    prompt: 'When do you open?',
    botId: 'bot_1',
    responseFormat: 'text',
    timeoutMs: 2_000,
    deadline: Date.now() + 2_000,
    ...overrides,
  });
  return { completion, input, ledger, requests };
}

async function* pieces(texts: string[], options: { delayMs?: number; failAfter?: number } = {}) {
  for (const [i, text] of texts.entries()) {
    if (options.failAfter === i) throw new ModelError('unavailable', 'The model service failed mid-answer.');
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    yield { type: 'text', text } as const;
  }
  yield { type: 'end', model: 'scripted:m', usage: { inputTokens: 9, outputTokens: 3 }, stopReason: 'stop' } as const;
}

async function collect(events: AsyncIterable<unknown>) {
  const seen: unknown[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('completeText.stream', () => {
  it('returns once the first piece arrived, yields the rest, then settles the one charge', async () => {
    const { completion, input, ledger } = setup(() => pieces(['We ', 'open ', 'at 9.']));
    const stream = await completion.stream(input());
    expect(ledger).toMatchObject({ balance: 2, charges: 1, settles: 0, refunds: 0 });
    expect(stream.sources).toEqual([
      { fileName: 'hours.md', score: 0.9 },
      { fileName: 'returns.pdf', score: 0.5 },
    ]);
    expect(await collect(stream.events)).toEqual([
      { type: 'text', text: 'We ' },
      { type: 'text', text: 'open ' },
      { type: 'text', text: 'at 9.' },
      {
        type: 'end',
        model: 'scripted:m',
        usage: { inputTokens: 9, outputTokens: 3 },
        truncated: false,
        finishReason: 'stop',
      },
    ]);
    expect(ledger).toMatchObject({ balance: 2, charges: 1, settles: 1, refunds: 0 });
  });

  it('passes the conversation, the caller’s instructions after the bot’s, and its temperature and token limit', async () => {
    const { completion, input, requests } = setup(() => pieces(['ok']));
    const turns = [
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello! How can I help?' },
      { role: 'user', text: 'When do you open?' },
    ] as const;
    const stream = await completion.stream(
      input({ turns: [...turns], extraInstructions: 'Answer in one line.', temperature: 1.5, maxOutputTokens: 20 }),
    );
    await collect(stream.events);
    const sent = requests[0]!;
    expect(sent.turns).toEqual(turns);
    expect(sent.prompt).toBe('When do you open?');
    expect(sent.system.startsWith('You answer questions about the store.\n\nAnswer in one line.')).toBe(true);
    expect(sent.system).toContain('[1] File: hours.md');
    expect(sent.temperature).toBe(1.5);
    expect(sent.maxOutputTokens).toBe(20);
  });

  it('a failure before the first piece is thrown as the mapped error, refunded once, with no stream', async () => {
    const { completion, input, ledger } = setup(() => pieces(['never'], { failAfter: 0 }));
    const failure = (await completion.stream(input()).catch((e: unknown) => e)) as { status: number; code: string };
    expect(asHttpError(failure)).toMatchObject({ status: 502, code: 'GENERATION_FAILED' });
    expect(ledger).toMatchObject({ balance: 3, charges: 1, settles: 0, refunds: 1 });
  });

  it('a failure after the first piece ends the events with the mapped error, refunded exactly once', async () => {
    const { completion, input, ledger } = setup(() => pieces(['We ', 'open'], { failAfter: 1 }));
    const stream = await completion.stream(input());
    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const event of stream.events) seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ type: 'text', text: 'We ' }]);
    expect(asHttpError(failure)).toMatchObject({ status: 502, code: 'GENERATION_FAILED' });
    expect(ledger).toMatchObject({ balance: 3, settles: 0, refunds: 1 });
  });

  it('a caller who goes away after receiving text aborts the model call and is charged', async () => {
    let modelSignal: AbortSignal | undefined;
    const { completion, input, ledger } = setup((request) => {
      modelSignal = request.signal;
      return pieces(['a ', 'b ', 'c ', 'd '], { delayMs: 30 });
    });
    const gone = new AbortController();
    const stream = await completion.stream(input({ callerGone: gone.signal }));
    const iterator = stream.events[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'text', text: 'a ' } });
    const next = iterator.next().catch(() => undefined);
    gone.abort();
    await next;
    expect(modelSignal?.aborted).toBe(true);
    expect(ledger).toMatchObject({ balance: 2, settles: 1, refunds: 0 });
    await iterator.return?.(undefined);
    expect(ledger.refunds).toBe(0);
  });

  it('the reviewer’s case: a whole 200-word answer read, the caller gone before the model’s end event: charged', async () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i} `);
    let release: () => void = () => {};
    const { completion, input, ledger } = setup(() =>
      (async function* () {
        for (const text of words) yield { type: 'text', text } as const;
        // The model's end event comes long after the text.
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        yield { type: 'end', model: 'scripted:m', stopReason: 'stop' } as const;
      })(),
    );
    const gone = new AbortController();
    const stream = await completion.stream(input({ callerGone: gone.signal }));
    const iterator = stream.events[Symbol.asyncIterator]();
    let text = '';
    for (let i = 0; i < words.length; i++) text += ((await iterator.next()).value as { text: string }).text;
    expect(text).toBe(words.join(''));
    const pending = iterator.next().catch((e: unknown) => e);
    gone.abort();
    await pending;
    release();
    expect(ledger).toMatchObject({ balance: 2, settles: 1, refunds: 0 });
  });

  it('a caller who goes away before the first token: the model call is aborted at once, the credit is kept', async () => {
    const gone = new AbortController();
    let modelSignal: AbortSignal | undefined;
    const { completion, input, ledger } = setup((request) => {
      modelSignal = request.signal;
      return (async function* () {
        // A first token 10 s away: the caller must not wait for it, nor must the model call.
        await new Promise((r) => setTimeout(r, 10_000).unref());
        yield { type: 'text', text: 'late' } as const;
        yield { type: 'end', model: 'scripted:m' } as const;
      })();
    });
    setTimeout(() => gone.abort(), 10);
    const started = Date.now();
    const failure = await completion.stream(input({ callerGone: gone.signal })).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(failure).toBeInstanceOf(Error);
    expect(modelSignal?.aborted).toBe(true);
    // The provider had the prompt: the credit is final.
    expect(ledger).toMatchObject({ balance: 2, settles: 1, refunds: 0 });
  });

  it('a caller who goes away during the knowledge search: the model is never called, the credit comes back', async () => {
    const gone = new AbortController();
    const ledger = new MemoryCreditLedger(3);
    let modelCalls = 0;
    const completion = makeCompleteText({
      bots: { get: async (id) => (id === bot.botId ? bot : undefined) },
      knowledge: {
        search: () => {
          setTimeout(() => gone.abort(), 5);
          return new Promise<KnowledgeExcerpt[]>((r) => setTimeout(() => r(excerpts), 200));
        },
      },
      credits: ledger,
      models: {
        resolve: () => ({
          provider: {
            name: 'scripted',
            generate: async () => {
              modelCalls++;
              throw new Error('not used');
            },
            stream: () => {
              modelCalls++;
              return pieces(['a']);
            },
          },
        }),
      },
      maxOutputTokens: 4096,
      log: { warn: () => {}, error: () => {} },
    });
    const request: CompletionInput = {
      caller: { projectId: 'prj_1', monthlyBotCredits: 3 },
      prompt: 'When do you open?',
      botId: 'bot_1',
      responseFormat: 'text',
      timeoutMs: 2_000,
      deadline: Date.now() + 2_000,
      callerGone: gone.signal,
    };
    await expect(completion.stream(request)).rejects.toThrow();
    expect(modelCalls).toBe(0);
    expect(ledger).toMatchObject({ balance: 3, settles: 0, refunds: 1 });
  });

  it('a consumer that takes one piece and never asks for more: the model call is aborted, the credit kept', async () => {
    let modelSignal: AbortSignal | undefined;
    const { completion, input, ledger } = setup((request) => {
      modelSignal = request.signal;
      return pieces(['a ', 'b ', 'c '], { delayMs: 10 });
    });
    const stream = await completion.stream(input());
    for await (const _event of stream.events) break;
    expect(modelSignal?.aborted).toBe(true);
    expect(ledger).toMatchObject({ balance: 2, settles: 1, refunds: 0 });
  });

  it('the model is always sent an output ceiling: the deployment’s when none was asked, else the smaller', async () => {
    const { completion, input, requests } = setup(() => pieces(['a']));
    for (const asked of [undefined, 100, 100_000]) {
      const stream = await completion.stream(input(asked === undefined ? {} : { maxOutputTokens: asked }));
      await collect(stream.events);
    }
    expect(requests.map((r) => r.maxOutputTokens)).toEqual([4096, 100, 4096]);
  });

  it('JSON mode: an answer streamed whole that does not parse ends with an error, and stays charged (it was read)', async () => {
    const { completion, input, ledger } = setup(() => pieces(['{"a":', ' 1']));
    const stream = await completion.stream(input({ responseFormat: 'json' }));
    const failure = await collect(stream.events).catch((e: unknown) => e);
    expect(asHttpError(failure)).toMatchObject({ status: 502, code: 'GENERATION_FAILED' });
    expect(ledger).toMatchObject({ balance: 2, settles: 1, refunds: 0 });
  });

  it('tool calls stream as they come, the end says tool_calls', async () => {
    const { completion, input, ledger } = setup(() =>
      (async function* () {
        yield { type: 'tool-call', index: 0, id: 'call_a', name: 'get_weather' } as const;
        yield { type: 'tool-arguments', index: 0, text: '{"city":' } as const;
        yield { type: 'tool-arguments', index: 0, text: '"Lisbon"}' } as const;
        yield { type: 'tool-call', index: 1, id: 'call_b', name: 'get_time' } as const;
        yield { type: 'tool-arguments', index: 1, text: '{}' } as const;
        yield { type: 'end', model: 'scripted:m', stopReason: 'tool_calls' } as const;
      })(),
    );
    const stream = await completion.stream(
      input({
        tools: [
          { name: 'get_weather', parameters: { type: 'object' } },
          { name: 'get_time', parameters: { type: 'object' } },
        ],
      }),
    );
    const events = await collect(stream.events);
    expect(events.map((e) => (e as { type: string }).type)).toEqual([
      'tool-call',
      'tool-arguments',
      'tool-arguments',
      'tool-call',
      'tool-arguments',
      'end',
    ]);
    expect(events.at(-1)).toMatchObject({ finishReason: 'tool_calls' });
    expect(ledger).toMatchObject({ balance: 2, settles: 1 });
  });

  it('a prompt over the context window is refunded, the model’s reason kept as the cause', async () => {
    const tooLong = new ModelError(
      'too-long',
      "The prompt and instructions are too long for the model's context window.",
    );
    const { completion, input, ledger } = setup(() => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(tooLong) }),
    }));
    const failure = (await completion.stream(input()).catch((e: unknown) => e)) as { cause?: unknown };
    expect((failure.cause as ModelError).kind).toBe('too-long');
    expect(ledger).toMatchObject({ balance: 3, refunds: 1 });
  });
});

describe('sourcesOf', () => {
  it('one entry per file with its best score, best first', () => {
    expect(sourcesOf(excerpts)).toEqual([
      { fileName: 'hours.md', score: 0.9 },
      { fileName: 'returns.pdf', score: 0.5 },
    ]);
    expect(sourcesOf([])).toEqual([]);
  });
});
