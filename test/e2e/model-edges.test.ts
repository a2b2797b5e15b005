import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type SharedModelDouble, sharedModelDouble } from '#test/support/model-double.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * What a caller may hand the model and what it pays for, against the running service and an OpenAI-compatible model
 * double (the `model` group): every caller string counts toward one budget (the side doors that used to reach the
 * model uncounted), the model always gets an output ceiling, and once the model was called the credit is final when
 * the caller leaves, the model call aborted within a second of it leaving, on every route and mode.
 */
let svc: ServiceClient;
let model: SharedModelDouble;
beforeAll(async () => {
  svc = await sharedService();
  model = sharedModelDouble();
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

let seq = 0;
const marker = () => `edge-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

async function projectWithBot(credits = 5) {
  const project = await svc.newProject({ monthlyBotCredits: credits });
  const bot = await svc.admin('POST', `/projects/${project.projectId}/bots`, { name: 'Edge', instructions: 'Hi.' });
  expect(bot.status).toBe(201);
  return { ...project, botId: bot.body.botId as string };
}

const post = (token: string, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${svc.baseUrl}/api/v1/ai/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

describe('the character budget has no side doors', () => {
  const huge = 'd'.repeat(2_000_000);
  it.each([
    [
      'chat/completions',
      'response_format.json_schema.description',
      (m: string, botId: string) => ({
        model: botId,
        messages: [{ role: 'user', content: m }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', description: huge, schema: { type: 'object' } },
        },
      }),
    ],
    [
      'chat/completions',
      'prediction.content',
      (m: string, botId: string) => ({
        model: botId,
        messages: [{ role: 'user', content: m }],
        prediction: { type: 'content', content: huge },
      }),
    ],
    [
      'responses',
      'text.format.description',
      (m: string, botId: string) => ({
        model: botId,
        input: m,
        text: { format: { type: 'json_schema', name: 'x', description: huge, schema: { type: 'object' } } },
      }),
    ],
  ])(
    '%s: %s of 2,000,000 characters is 400 context_length_exceeded; the model never sees it',
    async (path, _what, body) => {
      const { projectId, token, botId } = await projectWithBot(3);
      const m = marker();
      const res = await post(token, path, body(m, botId));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      });
      expect(await model.find(m)).toEqual([]);
      expect(await svc.botBalance(projectId)).toBe(3);
    },
  );
});

describe('schemas: checked cheaply while reading, compiled only once the bot is known', () => {
  const wide = (seed: number) => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 280 }, (_, i) => [`p${seed}_${i}`, { type: 'string' }])),
  });
  const body = (model: string, m: string) => ({
    model,
    messages: [{ role: 'user', content: m }],
    tools: Array.from({ length: 6 }, (_, i) => ({
      type: 'function',
      function: { name: `f${i}`, parameters: wide(i) },
    })),
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'x', schema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } } },
    },
  });

  it('an unknown bot is 404 whatever its schemas; a known one gets the 400 only compiling finds, nothing charged', async () => {
    const { projectId, token, botId } = await projectWithBot(3);
    const m = marker();
    const unknown = await post(token, 'chat/completions', body('bot_unknown', m));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: unknown }).error).toMatchObject({ code: 'model_not_found' });
    const known = await post(token, 'chat/completions', body(botId, m));
    expect(known.status).toBe(400);
    expect(((await known.json()) as { error: unknown }).error).toMatchObject({
      param: 'response_format.json_schema.schema',
      code: 'invalid_value',
    });
    expect(await model.find(m)).toEqual([]);
    expect(await svc.botBalance(projectId)).toBe(3);
  });
});

describe('the output ceiling is always sent', () => {
  it('chat, responses and the native completion without a limit send BOT_MAX_OUTPUT_TOKENS; a smaller ask is kept', async () => {
    const { token, botId } = await projectWithBot(5);
    const [a, b, c, d] = [marker(), marker(), marker(), marker()];
    expect(
      (await post(token, 'chat/completions', { model: botId, messages: [{ role: 'user', content: a }] })).status,
    ).toBe(200);
    expect((await post(token, 'responses', { model: botId, input: b })).status).toBe(200);
    expect((await svc.botsApi(token, 'completion', { botId, prompt: c })).status).toBe(200);
    expect(
      (
        await post(token, 'chat/completions', {
          model: botId,
          max_tokens: 77,
          messages: [{ role: 'user', content: d }],
        })
      ).status,
    ).toBe(200);
    for (const m of [a, b, c]) expect((await model.find(m))[0]!.body.max_tokens).toBe(4096);
    expect((await model.find(d))[0]!.body.max_tokens).toBe(77);
  });
});

describe('free model work: a caller who leaves once the model was called pays, and the call stops within 1 s', () => {
  // A first token 10 s away (streamed), or an answer 10 s away (not streamed).
  const routes = [
    [
      'chat/completions',
      true,
      (m: string, botId: string) => ({
        model: botId,
        stream: true,
        messages: [{ role: 'user', content: `#drip=10000 ${m}` }],
      }),
    ],
    [
      'chat/completions',
      false,
      (m: string, botId: string) => ({ model: botId, messages: [{ role: 'user', content: `#slow=10000 ${m}` }] }),
    ],
    ['responses', true, (m: string, botId: string) => ({ model: botId, stream: true, input: `#drip=10000 ${m}` })],
    ['responses', false, (m: string, botId: string) => ({ model: botId, input: `#slow=10000 ${m}` })],
  ] as const;

  it.each(routes)('%s (stream: %s): leaving before the first token', async (path, _stream, body) => {
    const { projectId, token, botId } = await projectWithBot(3);
    const m = marker();
    const controller = new AbortController();
    const pending = post(token, path, body(m, botId), controller.signal).catch((e: unknown) => e);
    // The model has the prompt: its call has started.
    await eventually(async () => ((await model.find(m)).length > 0 ? true : undefined), 10_000, 'the model called');
    const left = performance.now();
    controller.abort();
    await pending;
    await eventually(async () => ((await model.abandoned(m)).length > 0 ? true : undefined), 5_000, 'call aborted');
    expect(performance.now() - left).toBeLessThan(1_000);
    // Settled, not refunded: the sweeper would refund an open charge, never a settled one.
    await eventually(async () => ((await svc.botBalance(projectId)) === 2 ? true : undefined), 5_000, 'charged');
    const charges = await svc.admin('GET', `/projects/${projectId}/bot-credits`);
    expect(charges.body.disponivel).toBe(2);
  });

  it('the native completion: a caller who leaves is charged once the model answers', async () => {
    const { projectId, token } = await projectWithBot(3);
    const m = marker();
    const controller = new AbortController();
    const pending = fetch(`${svc.baseUrl}/api/v1/ai/completion`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ instructions: 'x', prompt: `#slow=300 ${m}` }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await eventually(async () => ((await model.find(m)).length > 0 ? true : undefined), 10_000, 'the model called');
    controller.abort();
    await pending;
    await eventually(async () => ((await svc.botBalance(projectId)) === 2 ? true : undefined), 5_000, 'charged');
  });
});
