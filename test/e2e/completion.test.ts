import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { type SharedModelDouble, sharedModelDouble } from '#test/support/model-double.ts';

let svc: ServiceClient;
let model: SharedModelDouble;

beforeAll(async () => {
  svc = await sharedService();
  model = sharedModelDouble();
});
afterAll(async () => {
  await svc?.close();
});

let seq = 0;
/** A marker that makes a prompt unique, so what the double received can be found for this request only. */
const marker = () => `req-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

const complete = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  svc.botsApi(token, 'completion', body, headers);
const balance = (projectId: string) => svc.botBalance(projectId);

describe('POST /api/v1/ai/completion with standalone instructions (OpenAI-compatible model)', () => {
  it('answers with the model text and usage, charges 1 credit, and sends the instructions as the system prompt', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const m = marker();
    const res = await complete(token, { prompt: `Say hi ${m}`, instructions: 'You are terse. Answer in Portuguese.' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      result: `Echo: Say hi ${m}`,
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    expect(await balance(projectId)).toBe(4);

    const [sent] = await model.find(m);
    expect(sent).toBeDefined();
    expect(sent!.system).toBe('You are terse. Answer in Portuguese.');
    expect(sent!.prompt).toBe(`Say hi ${m}`);
    expect(sent!.body.model).toBe('test-model');
    expect(sent!.body.response_format).toBeUndefined();
    expect(sent!.headers.authorization).toBe('Bearer sk-test-key');
  });

  it('returns dados for responseFormat json, asks the server for a JSON object, and tolerates a code fence', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const plain = marker();
    const res = await complete(token, { prompt: `#json ${plain}`, instructions: 'Extract.', responseFormat: 'json' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      dados: { answer: 42, ok: true },
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    const [sent] = await model.find(plain);
    expect(sent!.body.response_format).toEqual({ type: 'json_object' });
    expect(sent!.system.startsWith('Extract.')).toBe(true);
    expect(sent!.system).toMatch(/exactly one JSON value/);

    const fenced = await complete(token, {
      prompt: `#fenced ${marker()}`,
      instructions: 'Extract.',
      responseFormat: 'json',
    });
    expect(fenced.status).toBe(200);
    expect(fenced.body.dados).toEqual({ answer: 42, ok: true });
    expect(await balance(projectId)).toBe(3);
  });

  it('answers 502 GENERATION_FAILED and refunds when the model fails, returns bad JSON, garbage or nothing', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 3 });
    const cases: [string, 'text' | 'json'][] = [
      ['#fail', 'text'],
      ['#badjson', 'json'],
      ['#garbage', 'text'],
      ['#empty', 'text'],
    ];
    for (const [directive, responseFormat] of cases) {
      const res = await complete(token, { prompt: `${directive} ${marker()}`, instructions: 'x', responseFormat });
      expect(res.status, directive).toBe(502);
      expect(res.body).toMatchObject({
        success: false,
        error: 'GENERATION_FAILED',
        requestId: res.headers.get('x-request-id'),
      });
      expect(res.body.message).toMatch(/refunded/);
      // Nothing of the model server's own error text reaches the caller.
      expect(JSON.stringify(res.body)).not.toMatch(/secret\.py|stack/);
      expect(await balance(projectId), directive).toBe(3);
    }
  });

  it('passes on a busy model server as 502 with Retry-After, credit refunded', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 1 });
    const res = await complete(token, { prompt: `#busy ${marker()}`, instructions: 'x' });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('GENERATION_FAILED');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await balance(projectId)).toBe(1);
  });

  it('answers 504 GATEWAY_TIMEOUT when timeoutMs passes, aborting the model call, and refunds', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 2 });
    const m = marker();
    const started = Date.now();
    const res = await complete(token, { prompt: `#hang ${m}`, instructions: 'x', timeoutMs: 1000 });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ success: false, error: 'GATEWAY_TIMEOUT' });
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5000);
    expect(await balance(projectId)).toBe(2);
    // The service closed its connection to the model server: the call was aborted, not left running.
    await eventually(async () => (await model.abandoned(m)).length > 0, 2_000, 'the model call aborted');

    const slowButInTime = await complete(token, {
      prompt: `#slow=200 ${marker()}`,
      instructions: 'x',
      timeoutMs: 3000,
    });
    expect(slowButInTime.status).toBe(200);
    expect(await balance(projectId)).toBe(1);
  });

  it('answers 402 ERR_NO_BOT_CREDITS with nothing charged and no model call when the balance is spent', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 0 });
    const m = marker();
    const res = await complete(token, { prompt: m, instructions: 'x' });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ success: false, error: 'ERR_NO_BOT_CREDITS' });
    expect(await balance(projectId)).toBe(0);
    expect(await model.find(m)).toHaveLength(0);

    await svc.admin('POST', `/projects/${projectId}/bot-credits`, { amount: 1 });
    expect((await complete(token, { prompt: marker(), instructions: 'x' })).status).toBe(200);
    expect(await balance(projectId)).toBe(0);
  });

  it('validates before touching the balance: every problem at once, unknown fields, the botId/instructions rule', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 0 });
    const cases: [unknown, string[]][] = [
      [{ instructions: 'x' }, ['prompt']],
      [{ prompt: 'hi' }, ['botId']],
      [{ prompt: 'hi', botId: 'bot_x', instructions: 'x' }, ['instructions']],
      [{ prompt: '', instructions: 'x' }, ['prompt']],
      [{ prompt: 'a'.repeat(120_001), instructions: 'x' }, ['prompt']],
      [{ prompt: 'hi', instructions: 'i'.repeat(60_001) }, ['instructions']],
      [{ prompt: 'hi', instructions: 'x', timeoutMs: 999 }, ['timeoutMs']],
      [{ prompt: 'hi', instructions: 'x', timeoutMs: 90_001 }, ['timeoutMs']],
      [{ prompt: 'hi', instructions: 'x', timeoutMs: '5000' }, ['timeoutMs']],
      [{ prompt: 'hi', instructions: 'x', responseFormat: 'xml' }, ['responseFormat']],
      [{ prompt: 'hi', instructions: 'x', model: 'gpt-4o', temperature: 1 }, ['model', 'temperature']],
      [{ prompt: 42, timeoutMs: 0 }, ['prompt', 'timeoutMs', 'botId']],
    ];
    for (const [body, paths] of cases) {
      const res = await complete(token, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([...paths].sort());
    }
    // Limits are inclusive.
    await svc.admin('POST', `/projects/${projectId}/bot-credits`, { amount: 1 });
    const atLimits = await complete(token, {
      prompt: 'a'.repeat(120_000),
      instructions: 'i'.repeat(60_000),
      timeoutMs: 90_000,
    });
    expect(atLimits.status).toBe(200);
    expect(await balance(projectId)).toBe(0);
  });

  it('checks auth first, then the body: 401 before 400, INVALID_JSON, non-object bodies', async () => {
    const { token } = await svc.newProject({ monthlyBotCredits: 1 });
    const noAuth = await fetch(`${svc.baseUrl}/api/v1/ai/completion`, { method: 'POST', body: '{' });
    expect(noAuth.status).toBe(401);
    expect(((await noAuth.json()) as any).error).toBe('ERR_API_TOKEN_NOT_PROVIDED');
    const badJson = await complete(token, '{"prompt": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.error).toBe('INVALID_JSON');
    const array = await complete(token, '[1,2]');
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('VALIDATION_ERROR');
  });

  it('30 simultaneous completions against a balance of 10: exactly 10 succeed, 20 get 402, balance ends at 0', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 10 });
    const results = await Promise.all(
      Array.from({ length: 30 }, () => complete(token, { prompt: marker(), instructions: 'x' })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(20);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error).toBe('ERR_NO_BOT_CREDITS');
    expect(await balance(projectId)).toBe(0);
  });

  it('20 concurrent failures refund exactly 20', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 20 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => complete(token, { prompt: `#fail ${marker()}`, instructions: 'x' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(502));
    expect(await balance(projectId)).toBe(20);
    // And every one of those credits can be spent again, no more.
    const spend = await Promise.all(
      Array.from({ length: 21 }, () => complete(token, { prompt: marker(), instructions: 'x' })),
    );
    expect(spend.filter((r) => r.status === 200)).toHaveLength(20);
    expect(spend.filter((r) => r.status === 402)).toHaveLength(1);
    expect(await balance(projectId)).toBe(0);
  });

  it('replays a retried completion with the same Idempotency-Key: generated and charged once', async () => {
    const { projectId, token } = await svc.newProject({ monthlyBotCredits: 5 });
    const m = marker();
    const body = { prompt: `Once ${m}`, instructions: 'x' };
    const first = await complete(token, body, { 'idempotency-key': `k-${m}` });
    const second = await complete(token, body, { 'idempotency-key': `k-${m}` });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await model.find(m)).toHaveLength(1);
    expect(await balance(projectId)).toBe(4);
    const reused = await complete(token, { ...body, prompt: `Other ${m}` }, { 'idempotency-key': `k-${m}` });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
