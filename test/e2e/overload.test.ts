import OpenAI from 'openai';
import twilio from 'twilio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/contract/keys.ts';
import { queues } from '#shared/contract/queues.ts';
import { monthKey } from '#shared/credits/index.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import { crashRun, type CrashableService } from '#test/support/crash.ts';
import type { ServiceClient } from '#test/support/service.ts';
import { throttleFile } from '#test/support/throttles.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { startHttpDouble, twilioQueued } from './send-doubles.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * A busy store or queue, path by path (local/throttle.ts makes chosen keys answer DynamoDB's
 * ProvisionedThroughputExceededException and chosen queues refuse sends): every route answers 503
 * SERVICE_UNAVAILABLE with Retry-After, or OpenAI's `server_error` on those routes; nothing it refused was done,
 * charged or sent, and a limit or a credit that could not be checked admits nothing. A service of its own (the
 * throttles are its stand-ins'). The SDK retries each throttled call with backoff first, as it does on AWS, so each
 * refusal here takes a second or two.
 */
const throttles = throttleFile();
let svc: ServiceClient;
let twilioApi: Awaited<ReturnType<typeof startHttpDouble>>;
let receiver: TestReceiver;
const AUTH_TOKEN = 'twilio-auth-token-of-the-channel';

beforeAll(async () => {
  [twilioApi, receiver] = await Promise.all([
    startHttpDouble({
      reply: (_req, i) => twilioQueued(i),
    }),
    startReceiver(),
  ]);
  await start();
});
afterEach(() => throttles.clear());
afterAll(async () => {
  await Promise.all([run?.cleanUp(), twilioApi?.close(), receiver?.close()]);
  throttles.remove();
});

/**
 * The service as `npm start` runs it, in a process of its own on data that outlives it (test/support/crash.ts): a
 * restart on the same data makes what a worker had received visible again at once.
 */
const run = crashRun({ threads: false });
let service: CrashableService;
async function start() {
  service = await run.start('', {
    ...throttles.env,
    CREDIT_SWEEP_AFTER_SECONDS: '3600',
    BOT_RATE_LIMIT_PER_MINUTE: '60',
  });
  svc = service.client;
}
/** The service again on the same data: a report a worker held when it stopped is retried at once. */
async function restart() {
  await service.stop();
  await start();
}

/** What every overload answer looks like on the routes with the contract's error body. */
function expectBusy(res: { status: number; headers: Headers; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.body).toMatchObject({ success: false, error: 'SERVICE_UNAVAILABLE' });
  expect(JSON.stringify(res.body)).not.toMatch(/Throughput|Exception|Throttl/);
}

async function call(path: string, init: RequestInit & { token?: string } = {}) {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    ...init,
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string>),
    },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A project with a channel (sandbox unless `provider`), a custom token bound to it, and a general webhook. */
async function sendingProject(channel: Record<string, unknown> = {}) {
  const { projectId, token: apiToken } = await svc.newProject({ monthlyBotCredits: 5 });
  const created = await svc.admin('POST', `/projects/${projectId}/channels`, {
    name: 'SMS',
    type: 'sms',
    address: '+15005550006',
    credits: 10,
    ...channel,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const channelId = created.body.channelId as string;
  const custom = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId });
  await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
  });
  return { projectId, channelId, apiToken, token: custom.body.token as string };
}

const sendSms = (token: string, body = 'hello') =>
  call('/api/integration/generic', { method: 'POST', token, body: JSON.stringify({ to: '+5511988887777', body }) });

async function creditsOf(projectId: string, channelId: string) {
  return (await svc.admin('GET', `/projects/${projectId}/channels/${channelId}`)).body.credits as number;
}

async function outboxOf(projectId: string, channelId: string) {
  return (await svc.admin('GET', `/projects/${projectId}/channels/${channelId}/outbox`)).body.items as unknown[];
}

describe('the send route', () => {
  it('a throttled token lookup is 503, not 401', async () => {
    const { token } = await sendingProject();
    throttles.arm('table:TOKEN#*');
    expectBusy(await sendSms(token));
  });

  it("a token's or project's limit that cannot be written refuses: 503, nothing sent", async () => {
    const { projectId, channelId, token } = await sendingProject();
    throttles.arm('table:RL#*');
    expectBusy(await sendSms(token));
    throttles.clear();
    expect(await outboxOf(projectId, channelId)).toEqual([]);
  });

  it('a throttled channel read or credit charge is 503: nothing sent, nothing charged', async () => {
    const { projectId, channelId, token } = await sendingProject();
    throttles.arm(`table:${keys.channel(projectId, channelId).pk}`);
    expectBusy(await sendSms(token));
    throttles.arm(`table:${keys.channel(projectId, channelId).pk}:write`);
    expectBusy(await sendSms(token));
    throttles.clear();
    expect(await creditsOf(projectId, channelId)).toBe(10);
    expect(await outboxOf(projectId, channelId)).toEqual([]);
  });

  it('a sandbox send whose outbox entry cannot be written is 503, refunded, and reports nothing', async () => {
    const { projectId, channelId, token } = await sendingProject();
    // The charge goes through; the outbox entry (under the project, by channel and time) does not.
    throttles.arm(`table:${keys.message(projectId, channelId, '', '').pk}/MSG#*:write`);
    expectBusy(await sendSms(token, 'not recorded'));
    throttles.clear();
    expect(await creditsOf(projectId, channelId)).toBe(10);
    expect(await outboxOf(projectId, channelId)).toEqual([]);
    // The next send goes through, and its event is the only one the receiver ever gets.
    expect((await sendSms(token, 'recorded')).status).toBe(200);
    await eventually(async () => receiver.received.some((d) => d.json?.data?.payload?.body === 'recorded'));
    await consistently(
      () => expect(receiver.received.some((d) => d.json?.data?.payload?.body === 'not recorded')).toBe(false),
      500,
    );
  });

  it('an Idempotency-Key store that is throttled is 503, and the same key works once it is not', async () => {
    const { token } = await sendingProject();
    throttles.arm('table:IDEM#*');
    const headers = { 'idempotency-key': 'busy-1' };
    const body = JSON.stringify({ to: '+5511988887777', body: 'once' });
    expectBusy(await call('/api/integration/generic', { method: 'POST', token, headers, body }));
    throttles.clear();
    const first = await call('/api/integration/generic', { method: 'POST', token, headers, body });
    expect(first.status).toBe(200);
    const replay = await call('/api/integration/generic', { method: 'POST', token, headers, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the legacy send route touches no store: 410 whatever is throttled', async () => {
    throttles.arm('table:*', 'queue:*');
    const res = await call('/api/integration/send', { method: 'POST', body: '{}' });
    expect(res.status).toBe(410);
    expect(res.body.error).toBe('GONE');
  });
});

describe('reported events', () => {
  it('a refused events queue is 503 and nothing is queued; a limit that cannot be written is 503', async () => {
    const { projectId, channelId } = await sendingProject();
    const report = () =>
      svc.admin('POST', `/projects/${projectId}/events`, {
        channelId,
        type: 'message.delivered',
        data: { messageId: 'msg_reported' },
      });
    throttles.arm(`queue:${queues.events.localName}`);
    const refused = await report();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    throttles.arm('table:RL#*');
    expect((await report()).status).toBe(503);
    throttles.clear();
    await consistently(
      () => expect(receiver.received.some((d) => d.json?.data?.messageId === 'msg_reported')).toBe(false),
      500,
    );
    expect((await report()).status).toBe(202);
    await eventually(async () => receiver.received.some((d) => d.json?.data?.messageId === 'msg_reported'));
  });
});

describe('the Bots API', () => {
  /** Every route, as a caller would call it: the limiter comes first, so bodies need not be valid. */
  const ROUTES: [method: string, path: string][] = [
    ['GET', '/api/v1/ai/health'],
    ['POST', '/api/v1/ai/completion'],
    ['POST', '/api/v1/ai/search'],
    ['POST', '/api/v1/ai/extract'],
    ['POST', '/api/v1/ai/extract/uploads'],
    ['POST', '/api/v1/ai/embeddings'],
    ['GET', '/api/v1/ai/models'],
    ['GET', '/api/v1/ai/models/some-bot'],
    ['POST', '/api/v1/ai/chat/completions'],
    ['POST', '/api/v1/ai/responses'],
  ];
  const OPENAI = new Set(['/api/v1/ai/embeddings', '/api/v1/ai/chat/completions', '/api/v1/ai/responses']);

  it("each route's rate limit, when it cannot be written, refuses: 503 (OpenAI's shape on its routes), never admits", async () => {
    const { apiToken } = await sendingProject();
    throttles.arm('table:RL#*');
    for (const [method, path] of ROUTES) {
      const res = await call(path, { method, token: apiToken, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('1');
      if (path.startsWith('/api/v1/ai/models') || OPENAI.has(path))
        expect(res.body.error, path).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
      else expect(res.body, path).toMatchObject({ success: false, error: 'SERVICE_UNAVAILABLE' });
    }
  });

  it('a throttled token lookup is 503, not 401 ERR_API_TOKEN_AUTHENTICATION_FAILED', async () => {
    const { apiToken } = await sendingProject();
    throttles.arm('table:TOKEN#*');
    expectBusy(await call('/api/v1/ai/health', { token: apiToken }));
  });

  it('a credit charge that cannot be written is 503 and charges nothing, on every route that charges', async () => {
    const { projectId, apiToken } = await sendingProject();
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Store', instructions: 'Hi.' });
    const month = keys.credits(projectId, monthKey(new Date())).pk;
    throttles.arm(`table:${month}:write`);
    expectBusy(
      await call('/api/v1/ai/completion', {
        method: 'POST',
        token: apiToken,
        body: JSON.stringify({ prompt: 'Say hi', instructions: 'x' }),
      }),
    );
    const openai = new OpenAI({ baseURL: `${svc.baseUrl}/api/v1/ai`, apiKey: apiToken, maxRetries: 0 });
    const chat = await openai.chat.completions
      .create({ model: bot.body.botId, messages: [{ role: 'user', content: 'Hours?' }] })
      .catch((e) => e);
    expect(chat).toBeInstanceOf(OpenAI.APIError);
    expect(chat.status).toBe(503);
    expect(chat.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
    const responses = await openai.responses.create({ model: bot.body.botId, input: 'Hours?' }).catch((e) => e);
    expect(responses.status).toBe(503);
    const embeddings = await openai.embeddings.create({ model: 'default', input: ['store hours'] }).catch((e) => e);
    expect(embeddings.status).toBe(503);
    expect(embeddings.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
    const form = new FormData();
    form.append('file', new Blob([await textPdf(['Opening hours: 9 to 6.'])], { type: 'application/pdf' }), 'a.pdf');
    const extract = await fetch(`${svc.baseUrl}/api/v1/ai/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}` },
      body: form,
    });
    expectBusy({ status: extract.status, headers: extract.headers, body: await extract.json() });
    throttles.clear();
    expect(await svc.botBalance(projectId)).toBe(5);
  });

  it('a throttled bot read is 503, nothing charged', async () => {
    const { projectId, apiToken } = await sendingProject();
    const bot = await svc.admin('POST', `/projects/${projectId}/bots`, { name: 'Store', instructions: 'Hi.' });
    throttles.arm(`table:${keys.bot(bot.body.botId).pk}`);
    expectBusy(
      await call('/api/v1/ai/completion', {
        method: 'POST',
        token: apiToken,
        body: JSON.stringify({ botId: bot.body.botId, prompt: 'Hours?' }),
      }),
    );
    throttles.clear();
    expect(await svc.botBalance(projectId)).toBe(5);
  });
});

describe('provider callbacks', () => {
  async function postTwilio(channelId: string, params: Record<string, string>) {
    const url = `${svc.baseUrl}/inbound/twilio/${channelId}`;
    const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  const status = (sid: string, value: string) => ({
    AccountSid: 'AC0123456789abcdef',
    MessageSid: sid,
    MessageStatus: value,
    From: '+15005550006',
    To: '+5511988887777',
  });
  const provider = () => ({
    kind: 'twilio',
    accountSid: 'AC0123456789abcdef',
    authToken: AUTH_TOKEN,
    baseUrl: twilioApi.baseUrl,
  });

  it('a refused inbound queue or a throttled channel lookup is 503 with Retry-After: Twilio tries again', async () => {
    const { channelId } = await sendingProject({ provider: provider() });
    // Provider callbacks go to the ordered lane (one contact’s reports in turn).
    throttles.arm(`queue:${queues.inboundOrdered.localName}`);
    const refused = await postTwilio(channelId, status('SM_unknown_1', 'delivered'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    throttles.arm(`table:${keys.channelById(channelId).pk}`);
    expect((await postTwilio(channelId, status('SM_unknown_2', 'delivered'))).status).toBe(503);
    throttles.clear();
    expect((await postTwilio(channelId, status('SM_unknown_3', 'delivered'))).status).toBe(200);
  });

  it("never refused for the tenant's limits: a project at its sends limit still gets its callbacks queued", async () => {
    const { projectId, channelId } = await sendingProject({ provider: provider() });
    expect((await svc.admin('PATCH', `/projects/${projectId}`, { limits: { eventsPerSecond: 1 } })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postTwilio(channelId, status(`SM_flood_${i}`, 'delivered'))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
  });

  it('the worker whose write is throttled retries the report: the status event arrives once, none lost', async () => {
    const { token, channelId } = await sendingProject({ provider: provider() });
    const sent = await sendSms(token, 'to be delivered');
    expect(sent.status).toBe(200);
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    const messageId = sent.body.messageId as string;
    throttles.arm(`table:${keys.messageStatus(messageId).pk}:write`);
    expect((await postTwilio(channelId, status(sid, 'delivered'))).status).toBe(200);
    const delivered = () =>
      receiver.received.filter((d) => d.json?.type === 'message.delivered' && d.json.data.messageId === messageId);
    await consistently(() => expect(delivered()).toEqual([]), 3_000);
    throttles.clear();
    // The report is retried when its visibility timeout ends (three minutes); a restart releases it at once.
    await restart();
    await eventually(async () => delivered().length === 1, 20_000, 'message.delivered');
    await consistently(() => expect(delivered()).toHaveLength(1), 1_000);
  });
});
