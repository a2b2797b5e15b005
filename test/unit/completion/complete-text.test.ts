import { describe, expect, it } from 'vitest';
import type { Bot } from '#shared/bots/index.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import type { CompleteTextDeps, CompletionInput } from '#shared/completion/completion.ts';
import { asHttpError } from '#shared/http/domain-errors.ts';
import { streamOfReply } from '#test/support/model-stream.ts';
import { MemoryCreditLedger } from '#test/support/fakes/memory-credit-ledger.ts';
import type { KnowledgeExcerpt, KnowledgeSearchRequest } from '#shared/knowledge/index.ts';
import { ModelError, type ModelProvider, type ModelReply, type ModelRequest } from '#shared/models/index.ts';

class FakeModel implements ModelProvider {
  readonly name = 'fake';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly behave: (request: ModelRequest) => Promise<ModelReply>) {}
  generate(request: ModelRequest) {
    this.requests.push(request);
    return this.behave(request);
  }
  stream(request: ModelRequest) {
    this.requests.push(request);
    return streamOfReply(this.behave(request));
  }
}

const reply = (text: string): ModelReply => ({ text, model: 'fake:m', usage: { inputTokens: 3, outputTokens: 2 } });

const bot = (overrides: Partial<Bot> = {}): Bot => ({
  botId: 'bot_1',
  projectId: 'prj_1',
  name: 'Support',
  instructions: 'You answer questions about the store.',
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  knowledge: { version: 0, segments: [] },
  ...overrides,
});

const excerpts: KnowledgeExcerpt[] = [
  { text: 'We open at 9.', fileName: 'hours.md', score: 0.9 },
  { text: 'Returns within 30 days.', fileName: 'returns.pdf', score: 0.5 },
];

function setup(
  options: {
    balance?: number;
    model?: (request: ModelRequest) => Promise<ModelReply>;
    bots?: Bot[];
    search?: (request: KnowledgeSearchRequest) => Promise<KnowledgeExcerpt[]>;
    resolve?: CompleteTextDeps['models']['resolve'];
    knowledgeBudgetMs?: number;
  } = {},
) {
  const ledger = new MemoryCreditLedger(options.balance ?? 5);
  const model = new FakeModel(options.model ?? (async (r) => reply(`answer to ${r.prompt}`)));
  const searches: KnowledgeSearchRequest[] = [];
  const specs: (string | undefined)[] = [];
  const logs: string[] = [];
  const deps: CompleteTextDeps = {
    bots: { get: async (id) => (options.bots ?? [bot()]).find((b) => b.botId === id) },
    knowledge: {
      search: async (request) => {
        searches.push(request);
        return options.search ? options.search(request) : excerpts;
      },
    },
    credits: ledger,
    models: {
      resolve:
        options.resolve ??
        ((spec) => {
          specs.push(spec);
          return { provider: model, ...(spec?.includes(':') ? { model: spec.split(':')[1] } : {}) };
        }),
    },
    maxOutputTokens: 4096,
    log: { warn: (m) => logs.push(`warn: ${m}`), error: (m) => logs.push(`error: ${m}`) },
    ...(options.knowledgeBudgetMs === undefined ? {} : { knowledgeBudgetMs: options.knowledgeBudgetMs }),
  };
  const complete = makeCompleteText(deps);
  const input = (overrides: Partial<CompletionInput> = {}): CompletionInput => ({
    caller: { projectId: 'prj_1', monthlyBotCredits: 5 },
    prompt: 'When do you open?',
    instructions: 'Be brief.',
    responseFormat: 'text',
    timeoutMs: 2_000,
    deadline: Date.now() + 2_000,
    ...overrides,
  });
  return { complete, input, ledger, model, searches, specs, logs };
}

/** The failure as the HTTP edge answers it (status, code, headers); anything else passes through unchanged. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) =>
      asHttpError(e) as { status?: number; code?: string; message: string; headers?: Record<string, string> },
  );

describe('completeText', () => {
  it('generates with standalone instructions, charges once and settles', async () => {
    const { complete, input, ledger, model, searches } = setup();
    const out = await complete(input());
    expect(out).toEqual({
      responseFormat: 'text',
      text: 'answer to When do you open?',
      model: 'fake:m',
      usage: { inputTokens: 3, outputTokens: 2 },
      sources: [],
      truncated: false,
      toolCalls: [],
      finishReason: 'stop',
    });
    expect(model.requests[0]!.system).toBe('Be brief.');
    expect(model.requests[0]!.excerpts).toEqual([]);
    expect(searches).toHaveLength(0);
    expect(ledger).toMatchObject({ balance: 4, charges: 1, settles: 1, refunds: 0 });
  });

  it("puts the bot's instructions and its top excerpts, labelled with file names, in the system prompt", async () => {
    const { complete, input, model, searches, specs } = setup({
      bots: [bot({ model: 'openai:gpt-4o-mini', temperature: 0.3 })],
    });
    await complete(input({ instructions: undefined, botId: 'bot_1' }));
    expect(searches).toEqual([
      { botId: 'bot_1', bot: expect.objectContaining({ botId: 'bot_1' }), query: 'When do you open?', topK: 5 },
    ]);
    const sent = model.requests[0]!;
    expect(sent.system).toContain('You answer questions about the store.');
    expect(sent.system).toContain('[1] File: hours.md\nWe open at 9.');
    expect(sent.system).toContain('[2] File: returns.pdf\nReturns within 30 days.');
    expect(sent.system.indexOf('hours.md')).toBeLessThan(sent.system.indexOf('returns.pdf'));
    expect(sent.excerpts).toEqual(excerpts);
    expect(sent.temperature).toBe(0.3);
    expect(sent.model).toBe('gpt-4o-mini');
    expect(specs).toEqual(['openai:gpt-4o-mini']);
  });

  it('searches with the beginning of a long prompt (the search query limit)', async () => {
    const { complete, input, searches } = setup();
    await complete(input({ instructions: undefined, botId: 'bot_1', prompt: 'x'.repeat(5_000) }));
    expect(searches[0]!.query).toHaveLength(2_000);
  });

  it('404 for an unknown bot and 403 for another project’s bot, without touching the balance or the model', async () => {
    const { complete, input, ledger, model } = setup({ bots: [bot({ botId: 'bot_other', projectId: 'prj_2' })] });
    expect(await failure(complete(input({ instructions: undefined, botId: 'bot_nope' })))).toMatchObject({
      status: 404,
      code: 'BOT_NOT_FOUND',
    });
    expect(await failure(complete(input({ instructions: undefined, botId: 'bot_other' })))).toMatchObject({
      status: 403,
      code: 'BOT_FORBIDDEN',
    });
    expect(ledger.charges).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it('402 with nothing charged and no model call when the balance is spent', async () => {
    const { complete, input, ledger, model } = setup({ balance: 0 });
    expect(await failure(complete(input()))).toMatchObject({ status: 402, code: 'ERR_NO_BOT_CREDITS' });
    expect(ledger.balance).toBe(0);
    expect(model.requests).toHaveLength(0);
  });

  it('a model failure is 502 GENERATION_FAILED with its reason and Retry-After, refunded exactly once', async () => {
    const { complete, input, ledger } = setup({
      model: async () => {
        throw new ModelError('throttled', 'The model service is busy; try again later.', { retryAfterSeconds: 9 });
      },
    });
    const error = await failure(complete(input()));
    expect(error).toMatchObject({ status: 502, code: 'GENERATION_FAILED', headers: { 'Retry-After': '9' } });
    expect(error!.message).toMatch(/busy.*refunded/);
    expect(ledger).toMatchObject({ balance: 5, charges: 1, refunds: 1, settles: 0 });
  });

  it('an unexpected error is refunded and passes through (a hidden 500)', async () => {
    const boom = new TypeError('bug');
    const { complete, input, ledger } = setup({
      model: async () => {
        throw boom;
      },
    });
    expect(await failure(complete(input()))).toBe(boom);
    expect(ledger).toMatchObject({ balance: 5, refunds: 1 });
  });

  it('504 at the deadline even when the provider ignores its signal; the signal was aborted; refunded once', async () => {
    const { complete, input, ledger, model } = setup({ model: () => new Promise(() => {}) });
    const started = Date.now();
    const error = await failure(complete(input({ timeoutMs: 1_000, deadline: Date.now() + 150 })));
    expect(error).toMatchObject({ status: 504, code: 'GATEWAY_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(model.requests[0]!.signal.aborted).toBe(true);
    expect(ledger).toMatchObject({ balance: 5, refunds: 1, settles: 0 });
  });

  it('a provider that turns the abort into its own error still gives 504', async () => {
    const { complete, input } = setup({
      model: (r) =>
        new Promise((_, reject) =>
          r.signal.addEventListener('abort', () => reject(new ModelError('unavailable', 'socket closed'))),
        ),
    });
    expect(await failure(complete(input({ deadline: Date.now() + 100 })))).toMatchObject({ status: 504 });
  });

  it('a deadline already passed answers 504 without charging', async () => {
    const { complete, input, ledger } = setup();
    expect(await failure(complete(input({ deadline: Date.now() - 1 })))).toMatchObject({ status: 504 });
    expect(ledger.charges).toBe(0);
  });

  it('a failing or slow knowledge search means no excerpts, not an error', async () => {
    const failing = setup({
      search: async () => {
        throw new Error('index gone');
      },
    });
    await failing.complete(failing.input({ instructions: undefined, botId: 'bot_1' }));
    expect(failing.model.requests[0]!.excerpts).toEqual([]);
    expect(failing.model.requests[0]!.system).toBe('You answer questions about the store.');
    expect(failing.logs.join()).toMatch(/knowledge search failed/);

    const slow = setup({ search: () => new Promise(() => {}), knowledgeBudgetMs: 50 });
    const out = await slow.complete(slow.input({ instructions: undefined, botId: 'bot_1' }));
    expect(out.responseFormat).toBe('text');
    expect(slow.model.requests[0]!.excerpts).toEqual([]);
  });

  it('JSON: parses the answer (code fence tolerated); an unparseable answer is 502, refunded', async () => {
    const ok = setup({ model: async () => reply('```json\n[1, {"a": null}]\n```') });
    expect(await ok.complete(ok.input({ responseFormat: 'json' }))).toMatchObject({
      responseFormat: 'json',
      data: [1, { a: null }],
    });
    expect(ok.model.requests[0]!.responseFormat).toBe('json');
    expect(ok.model.requests[0]!.system).toMatch(/exactly one JSON value/);

    const bad = setup({ model: async () => reply('Sure! {"a": 1}') });
    const error = await failure(bad.complete(bad.input({ responseFormat: 'json' })));
    expect(error).toMatchObject({ status: 502, code: 'GENERATION_FAILED' });
    expect(error!.message).toMatch(/valid JSON/);
    expect(bad.ledger).toMatchObject({ balance: 5, refunds: 1 });
  });

  it('a refund that fails is logged and left to the sweeper; the caller still gets the 502', async () => {
    const { complete, input, ledger, logs } = setup({
      model: async () => {
        throw new ModelError('failed', 'The model call failed.');
      },
    });
    ledger.failRefund = true;
    expect(await failure(complete(input()))).toMatchObject({ status: 502 });
    expect(logs.join()).toMatch(/refund failed/);
    expect(ledger.open.size).toBe(1);
  });

  it('a settle that fails does not fail a completed answer', async () => {
    const { complete, input, ledger, logs } = setup();
    ledger.failSettle = true;
    expect((await complete(input())).responseFormat).toBe('text');
    expect(logs.join()).toMatch(/not settled/);
  });

  it('a provider the deployment cannot reach is 502 before any charge', async () => {
    const { complete, input, ledger } = setup({
      resolve: () => {
        throw new ModelError(
          'misconfigured',
          'The OpenAI-compatible provider is not configured on this deployment (OPENAI_BASE_URL).',
        );
      },
    });
    expect(await failure(complete(input()))).toMatchObject({ status: 502, code: 'GENERATION_FAILED' });
    expect(ledger.charges).toBe(0);
  });

  it('tools go to the model with the choice; its calls come back with finish_reason tool_calls, one credit', async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const { complete, input, ledger, model } = setup({
      model: async () => ({
        text: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
        model: 'fake:m',
        stopReason: 'tool_use',
      }),
    });
    const out = await complete(input({ tools, toolChoice: 'required', parallelToolCalls: false }));
    expect(out).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
    });
    expect(model.requests[0]).toMatchObject({ tools, toolChoice: 'required', parallelToolCalls: false });
    expect(ledger).toMatchObject({ balance: 4, settles: 1 });
  });

  it('a JSON Schema answer that does not validate is asked for once more; twice invalid: 502 naming the rule, charged', async () => {
    const jsonSchema = {
      name: 'person',
      schema: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] },
    };
    const answers = ['{"age":"old"}', '{"age":41}'];
    const { complete, input, ledger, model } = setup({ model: async () => reply(answers.shift() ?? '{}') });
    const out = await complete(input({ responseFormat: 'json', jsonSchema }));
    expect(out).toMatchObject({ responseFormat: 'json', data: { age: 41 } });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.jsonSchema).toEqual(jsonSchema);
    expect(ledger).toMatchObject({ balance: 4, settles: 1, refunds: 0 });

    // The model's answer carries its own key and text: neither may come back to the caller in the error.
    const bad = setup({ model: async () => reply('{"age":"old","secret_key_x":"leaked text y"}') });
    const error = await bad.complete(bad.input({ responseFormat: 'json', jsonSchema })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'GENERATION_FAILED', invalidAnswer: true });
    expect(asHttpError(error)).toMatchObject({ status: 502 });
    const message = (error as Error).message;
    expect(message).toContain('#/properties/age/type');
    expect(message).toContain('must be integer');
    expect(message).not.toMatch(/old|secret_key_x|leaked/);
    expect(message).toMatch(/credit is spent/);
    expect(bad.model.requests).toHaveLength(2);
    // The model answered twice: the caller's own schema refused it, so the credit is final.
    expect(bad.ledger).toMatchObject({ balance: 4, settles: 1, refunds: 0 });
  });

  it('a JSON Schema answer keyed by the model (additionalProperties, propertyNames) is refused without its keys', async () => {
    const jsonSchema = {
      name: 'map',
      schema: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'number' } },
    };
    const bad = setup({ model: async () => reply('{"Bad Key 1":1,"other":"txt"}') });
    const error = await bad.complete(bad.input({ responseFormat: 'json', jsonSchema })).catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toContain('#/propertyNames');
    expect(message).not.toMatch(/Bad Key|other|txt/);
  });

  it('a parameter the bot’s provider does not take is a 400 naming it, before anything is charged', async () => {
    const offline = { name: 'offline', generate: async () => reply('x'), stream: () => ({}) as never };
    const { complete, input, ledger } = setup({ resolve: () => ({ provider: offline }) });
    const error = await failure(complete(input({ parameters: { logit_bias: { '42': 5 } } })));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect((error as { details?: unknown }).details).toEqual([
      expect.objectContaining({ path: 'logit_bias', code: 'unsupported_parameter' }),
    ]);
    expect(await failure(complete(input({ temperature: 0.7 })))).toMatchObject({ status: 400 });
    expect((await complete(input({ temperature: 0, parameters: { seed: 1, stop: ['x'] } }))).text).toBe('x');
    expect(ledger.charges).toBe(1);
  });

  it('a model that refuses a parameter (unsupported) is a 400 naming it; the credit comes back', async () => {
    const { complete, input, ledger } = setup({
      model: async () => {
        throw new ModelError('unsupported', 'This model does not take this tool_choice.', { param: 'tool_choice' });
      },
    });
    const error = await failure(complete(input()));
    expect(error).toMatchObject({ status: 400 });
    expect((error as { details?: { path: string }[] }).details?.[0]?.path).toBe('tool_choice');
    expect(ledger).toMatchObject({ balance: 5, refunds: 1 });
  });

  it('a streamed JSON Schema answer is validated before its first piece; charged once produced', async () => {
    const jsonSchema = { name: 'p', schema: { type: 'object', required: ['a'] } };
    const { complete, input, ledger, model } = setup({ model: async () => reply('{"a":1}') });
    const stream = await complete.stream(input({ responseFormat: 'json', jsonSchema }));
    expect(model.requests).toHaveLength(1);
    expect(ledger).toMatchObject({ settles: 0, refunds: 0 });
    const pieces: string[] = [];
    for await (const event of stream.events) if (event.type === 'text') pieces.push(event.text);
    expect(JSON.parse(pieces.join(''))).toEqual({ a: 1 });
    expect(ledger).toMatchObject({ balance: 4, settles: 1, refunds: 0 });

    // The answer was produced: a caller who leaves before its first piece still pays for it.
    const left = setup({ model: async () => reply('{"a":1}') });
    const gone = new AbortController();
    await left.complete.stream(left.input({ responseFormat: 'json', jsonSchema, callerGone: gone.signal }));
    gone.abort();
    await new Promise((r) => setTimeout(r, 0));
    expect(left.ledger).toMatchObject({ balance: 4, settles: 1, refunds: 0 });

    const bad = setup({ model: async () => reply('{}') });
    const error = await bad.complete.stream(bad.input({ responseFormat: 'json', jsonSchema })).catch((e: unknown) => e);
    expect(asHttpError(error)).toMatchObject({ status: 502 });
    expect(bad.ledger).toMatchObject({ balance: 4, settles: 1, refunds: 0 });
  });
});
