import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTraffic,
  openApiChecker,
  recordTraffic,
  TRAFFIC_DIR_ENV,
  type Exchange,
} from '#test/support/openapi-traffic.ts';
import { textPdf } from '#test/support/pdf-fixtures.ts';
import { describeNeeding, inCI } from '#test/support/prerequisites.ts';
import { eventually } from '#test/support/eventually.ts';
import { sendMetaWebhook } from '#test/support/meta-webhook.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { postTwilioCallback } from '#test/support/twilio-callback.ts';

/**
 * `/openapi.json` against live traffic: every documented operation is called once (plus the error answers clients
 * meet most), and every request the service accepted and every answer it gave is validated against the document
 * (JSON Schema 2020-12, ajv). With OPENAPI_TRAFFIC_DIR set, the e2e suite's own traffic (recorded by
 * test/support/service.ts) is validated too: run the suite with it first, then this file.
 */
let svc: ServiceClient;
let document: any;
let traffic: ReturnType<typeof recordTraffic>;

beforeAll(async () => {
  svc = await sharedService();
  document = await (await fetch(`${svc.baseUrl}/openapi.json`)).json();
  traffic = recordTraffic(svc.baseUrl);
});
afterAll(async () => {
  traffic?.stop();
  await svc?.close();
});

const bearer = (token: string, json?: unknown): RequestInit => ({
  headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(json === undefined ? {} : { body: JSON.stringify(json) }),
});

const api = (path: string, init: RequestInit = {}) => fetch(`${svc.baseUrl}${path}`, init);

/** A project, its API token and bot credits; `p` its management path. */
async function projectOperations() {
  const created = await svc.admin('POST', '/projects', { companyId: 4242, name: 'Docs', monthlyBotCredits: 5 });
  const p = `/projects/${created.body.projectId}`;
  await svc.admin('GET', '/projects');
  await svc.admin('GET', p);
  await svc.admin('PATCH', p, { contactEmail: 'ops@example.com' });
  await svc.admin('POST', `${p}/api-token`);
  await svc.admin('GET', `${p}/api-token`);
  await svc.admin('DELETE', `${p}/api-token`);
  const token = (await svc.admin('POST', `${p}/api-token`)).body.token as string;
  await svc.admin('GET', `${p}/bot-credits`);
  await svc.admin('POST', `${p}/bot-credits`, { amount: 5 });
  await svc.admin('GET', `${p}/bot-credits/usage`);
  return { created, p, token };
}

/** A channel, its integrations (a custom one, a webhook with its deliveries), sends; `c` and `w` their paths. */
async function messagingOperations(p: string) {
  const channel = (await svc.admin('POST', `${p}/channels`, { type: 'sms', name: 'SMS', address: '+5511999990000' }))
    .body;
  const c = `${p}/channels/${channel.channelId}`;
  await svc.admin('GET', `${p}/channels`);
  await svc.admin('GET', c);
  await svc.admin('POST', `${c}/credits`, { amount: 3 });

  const custom = (await svc.admin('POST', `${p}/integrations`, { product: 'custom', channelId: channel.channelId }))
    .body;
  const webhook = (
    await svc.admin('POST', `${p}/integrations`, { product: 'webhook', scope: 'general', url: 'http://127.0.0.1:9/h' })
  ).body;
  const w = `${p}/integrations/${webhook.integrationId}`;
  await svc.admin('GET', `${p}/integrations`);
  await svc.admin('GET', w);
  await svc.admin('PATCH', w, { enabled: true });
  await svc.admin('POST', `${w}/rotate-secret`);
  await svc.admin('POST', `${w}/test`);
  await svc.admin('POST', `${p}/events`, { channelId: channel.channelId, type: 'message.sent', data: { id: 'm1' } });
  const delivery = await eventually(async () => (await svc.admin('GET', `${w}/deliveries`)).body.items?.[0]);
  await svc.admin('POST', `${w}/deliveries/${delivery.deliveryId}/retry`);
  await svc.admin('GET', `${w}/health`);
  await svc.admin('POST', `${w}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() });
  const sendToken = (await svc.admin('POST', `${p}/integrations/${custom.integrationId}/rotate-token`)).body.token;
  await svc.send(sendToken, { to: '+5511988887777', body: 'hello' });
  await api('/api/integration/send', { method: 'POST', ...bearer(sendToken, { to: '+5511988887777', body: 'x' }) });
  await svc.admin('GET', `${c}/outbox`);
  return { channel, c, custom, w, sendToken };
}

/** Channel ingress: the sandbox's simulations, a message's status, conversations, the providers' addresses. */
async function ingressOperations(p: string, c: string, sendToken: string) {
  const sent = (await (await svc.send(sendToken, { to: '+5511988887777', body: 'status?' })).json()) as any;
  await svc.admin('POST', `${c}/sandbox/inbound`, { from: '+5511977776666', text: 'Oi' });
  await svc.admin('POST', `${c}/sandbox/status`, { messageId: sent.messageId, status: 'delivered' });
  await api(`/api/integration/messages/${sent.messageId}`, bearer(sendToken));
  // Conversations: keywords, a suppression and its removal, a contact's window and messages.
  await svc.admin('PATCH', c, { optOutKeywords: ['STOP', 'PARE'] });
  await svc.admin('POST', `${c}/sandbox/inbound`, { from: '+5511977776655', text: 'PARE' });
  await svc.admin('GET', `${c}/suppressions`);
  await svc.admin('GET', `${c}/suppressions/${encodeURIComponent('+5511977776655')}`);
  await svc.admin('DELETE', `${c}/suppressions/${encodeURIComponent('+5511977776655')}`);
  await svc.admin('GET', `${c}/conversations/${encodeURIComponent('+5511977776666')}`);
  await svc.admin('GET', `${c}/conversations/${encodeURIComponent('+5511977776666')}/messages`);
  await api(`/api/integration/conversations/${encodeURIComponent('+5511988887777')}`, bearer(sendToken));
  await api(
    `/api/integration/conversations/${encodeURIComponent('+5511988887777')}/messages?limit=5`,
    bearer(sendToken),
  );
  const twilioChannel = (
    await svc.admin('POST', `${p}/channels`, {
      type: 'sms',
      name: 'Twilio',
      address: '+5511999990001',
      provider: { kind: 'twilio', accountSid: 'AC01', authToken: 'twilio-auth-token' },
    })
  ).body;
  const twilioPath = `/inbound/twilio/${twilioChannel.channelId}`;
  const receipt = { AccountSid: 'AC01', MessageSid: 'SM01', MessageStatus: 'delivered' };
  await postTwilioCallback(`${svc.baseUrl}${twilioPath}`, 'twilio-auth-token', receipt);
  const whatsApp = (
    await svc.admin('POST', `${p}/channels`, {
      type: 'whatsapp',
      name: 'WhatsApp',
      address: '+5511999990002',
      provider: { kind: 'whatsapp-cloud', phoneNumberId: '1065', accessToken: 'EAAG', appSecret: 'meta-app-secret' },
    })
  ).body;
  const metaPath = `/inbound/whatsapp/${whatsApp.channelId}`;
  await api(`${metaPath}?hub.mode=subscribe&hub.verify_token=${whatsApp.provider.verifyToken}&hub.challenge=42`);
  const webhookBody = Buffer.from(JSON.stringify({ object: 'whatsapp_business_account', entry: [] }));
  await sendMetaWebhook(svc.baseUrl, whatsApp.channelId, 'meta-app-secret', webhookBody);
  await svc.admin('DELETE', `${p}/channels/${twilioChannel.channelId}`);
  await svc.admin('DELETE', `${p}/channels/${whatsApp.channelId}`);
}

/** A bot and its knowledge, then every AI route (chat, Responses, embeddings, extract) with the project's token. */
async function botOperations(p: string, token: string) {
  const bot = (await svc.admin('POST', `${p}/bots`, { name: 'Loja', instructions: 'Seja breve.' })).body;
  const b = `${p}/bots/${bot.botId}`;
  await svc.admin('GET', `${p}/bots`);
  await svc.admin('GET', b);
  await svc.admin('PATCH', b, { temperature: 0.2 });
  await api(`/admin/v1${b}/knowledge/politica.md`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'text/markdown' },
    body: '# Trocas\n\nTrocas em até 7 dias.',
  });
  await svc.admin('POST', `${b}/knowledge/catalogo.pdf/upload`, { contentType: 'application/pdf' });
  await svc.admin('GET', `${b}/knowledge`);

  await api('/api/v1/ai/health', bearer(token));
  await api('/api/v1/ai/search', { method: 'POST', ...bearer(token, { botId: bot.botId, query: 'trocas' }) });
  await api('/api/v1/ai/completion', { method: 'POST', ...bearer(token, { botId: bot.botId, prompt: 'Trocas?' }) });
  await api('/api/v1/ai/models', bearer(token));
  const chat = { model: bot.botId, messages: [{ role: 'user', content: 'Trocas?' }] };
  await api('/api/v1/ai/chat/completions', { method: 'POST', ...bearer(token, chat) });
  await (
    await api('/api/v1/ai/chat/completions', { method: 'POST', ...bearer(token, { ...chat, stream: true }) })
  ).text();
  await api(`/api/v1/ai/models/${bot.botId}`, bearer(token));
  await api('/api/v1/ai/models/bot_missing', bearer(token));
  const weather = {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  };
  await api('/api/v1/ai/chat/completions', {
    method: 'POST',
    ...bearer(token, { ...chat, tools: [weather], tool_choice: 'required' }),
  });
  await api('/api/v1/ai/chat/completions', { method: 'POST', ...bearer(token, { ...chat, n: 2 }) });
  await api('/api/v1/ai/responses', { method: 'POST', ...bearer(token, { model: bot.botId, input: 'Trocas?' }) });
  await (
    await api('/api/v1/ai/responses', {
      method: 'POST',
      ...bearer(token, { model: bot.botId, input: 'Oi', stream: true }),
    })
  ).text();
  await api('/api/v1/ai/responses', {
    method: 'POST',
    ...bearer(token, { model: bot.botId, input: 'x', store: true }),
  });
  await api('/api/v1/ai/embeddings', { method: 'POST', ...bearer(token, { model: 'default', input: ['a', 'b'] }) });
  await api('/api/v1/ai/embeddings', {
    method: 'POST',
    ...bearer(token, { model: bot.botId, input: 'a', encoding_format: 'base64' }),
  });
  await api('/api/v1/ai/responses/resp_1', bearer(token));
  const form = new FormData();
  form.set('mode', 'pages');
  form.set('file', new Blob([await textPdf(['Uma página.'])], { type: 'application/pdf' }), 'a.pdf');
  await api('/api/v1/ai/extract', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  await api('/api/v1/ai/extract/uploads', { method: 'POST', ...bearer(token) });
  const upload = (await (
    await api('/api/v1/ai/extract/uploads', { method: 'POST', ...bearer(token, {}) })
  ).json()) as any;
  const uploadForm = new FormData();
  for (const [k, v] of Object.entries<string>(upload.fields)) uploadForm.set(k, v);
  uploadForm.set('file', new Blob([await textPdf(['Enviado antes.'])], { type: 'application/pdf' }), 'b.pdf');
  await fetch(upload.uploadUrl, { method: 'POST', body: uploadForm });
  await api('/api/v1/ai/extract', { method: 'POST', ...bearer(token, { fileKey: upload.fileKey }) });
  return { bot, b };
}

/** Access (project keys, a portal link opened once, the session it gives, the audit log), then volume and polling. */
async function accessAndVolumeOperations(
  created: { body: { projectId: string } },
  p: string,
  c: string,
  custom: { token: string },
) {
  const key = (await svc.admin('POST', `${p}/keys`, { name: 'CI', role: 'viewer' })).body;
  await svc.admin('GET', `${p}/keys`);
  await svc.admin('DELETE', `${p}/keys/${key.keyId}`);
  const link = (await svc.admin('POST', `${p}/portal-sessions`, { role: 'viewer' })).body;
  const code = decodeURIComponent(String(link.url).split('#code=')[1] ?? '');
  const exchanged = await api('/admin/v1/portal/exchange', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, projectId: created.body.projectId }),
  });
  const cookie = (exchanged.headers.get('set-cookie') ?? '').split(';')[0]!;
  await api('/admin/v1/session', { headers: { cookie } });
  await svc.admin('DELETE', `${p}/portal-sessions`);
  await svc.admin('GET', `${p}/audit`);

  // Volume: a batch, a scheduled send moved then cancelled, and what the console lists of them.
  const batch = (await (
    await api('/api/integration/generic/batch', {
      method: 'POST',
      ...bearer(custom.token, { messages: [{ to: '+5511988880000', body: 'Lote' }] }),
    })
  ).json()) as any;
  await api(`/api/integration/batches/${batch.batchId}`, bearer(custom.token));
  await svc.admin('GET', `${c}/batches`);
  await svc.admin('GET', `${c}/batches/${batch.batchId}`);
  const later = (at: number) => new Date(Date.now() + at).toISOString();
  const scheduled = (await (
    await api('/api/integration/generic', {
      method: 'POST',
      ...bearer(custom.token, { to: '+5511988880000', body: 'Depois', sendAt: later(3_600_000) }),
    })
  ).json()) as any;
  await api(`/api/integration/messages/${scheduled.messageId}`, {
    method: 'PATCH',
    ...bearer(custom.token, { sendAt: later(7_200_000) }),
  });
  await svc.admin('GET', `${c}/scheduled`);
  await svc.admin('DELETE', `${c}/scheduled/${scheduled.messageId}`);
  const again = (await (
    await api('/api/integration/generic', {
      method: 'POST',
      ...bearer(custom.token, { to: '+5511988880000', body: 'Depois', sendAt: later(3_600_000) }),
    })
  ).json()) as any;
  await api(`/api/integration/messages/${again.messageId}`, { method: 'DELETE', ...bearer(custom.token) });

  // Polling: a poller's first page.
  const poller = (await svc.admin('POST', `${p}/integrations`, { product: 'poller' })).body;
  await api('/api/integration/events?limit=10', bearer(poller.token));
}

async function driveEveryOperation(): Promise<void> {
  const { created, p, token } = await projectOperations();
  const { c, custom, w, sendToken } = await messagingOperations(p);
  await ingressOperations(p, c, sendToken);
  const { bot, b } = await botOperations(p, token);
  // The answers clients meet most besides success: validation, auth, unknown path, wrong method.
  await api('/api/v1/ai/search', { method: 'POST', ...bearer(token, { botId: bot.botId, query: '' }) });
  await api('/api/v1/ai/health', bearer('sbk_wrong'));
  await svc.admin('GET', `${p}/nothing-here`);
  await api('/api/v1/ai/health', { method: 'DELETE', ...bearer(token) });

  await accessAndVolumeOperations(created, p, c, custom);
  await svc.admin('DELETE', `${b}/knowledge/politica.md`);
  await svc.admin('DELETE', b);
  await svc.admin('DELETE', `${p}/integrations/${custom.integrationId}`);
  await svc.admin('DELETE', w);
  await svc.admin('DELETE', c);
}

function problemsOf(exchanges: Exchange[]) {
  const checker = openApiChecker(document);
  const exercised = new Set<string>();
  const problems: string[] = [];
  for (const exchange of exchanges) {
    const result = checker.check(exchange);
    if (result.operation) exercised.add(result.operation);
    problems.push(...result.problems);
  }
  return { problems, exercised, operations: checker.operations };
}

describe('/openapi.json describes the live traffic', () => {
  it('every documented operation, called once: requests, statuses and answers match the document', async () => {
    await driveEveryOperation();
    await traffic.settled();
    const { problems, exercised, operations } = problemsOf(traffic.exchanges);
    expect(problems).toEqual([]);
    // The site's pages are answered by the local runner itself, not a function, so no exchange is recorded for them
    // here; bundles mode serves them from their function (test/e2e/bundles-mode.test.ts).
    const sitePages = new Set(['GET /console', 'GET /docs', 'GET /openapi.json', 'GET /portal']);
    expect(operations.filter((o) => !exercised.has(o) && !sitePages.has(o))).toEqual([]);
  }, 90_000);

  it('catches an answer or an accepted request the document does not describe', () => {
    const checker = openApiChecker(document);
    const health = { method: 'GET', path: '/api/v1/ai/health', responseHeaders: { 'x-request-id': 'r' } };
    const json = 'application/json';
    expect(
      checker.check({ ...health, status: 200, responseContentType: json, responseBody: { kind: 'json', value: {} } })
        .problems,
    ).not.toEqual([]);
    expect(checker.check({ ...health, status: 418 }).problems).toEqual([
      'GET /api/v1/ai/health → 418: status 418 not documented for GET /api/v1/ai/health',
    ]);
    const search = { method: 'POST', path: '/api/v1/ai/search', status: 200, responseHeaders: { 'x-request-id': 'r' } };
    expect(
      checker.check({ ...search, requestContentType: json, requestBody: { kind: 'json', value: { other: 1 } } })
        .problems.length,
    ).toBeGreaterThan(0);
  });
});

// The suite's own traffic, recorded by an earlier run: .ci/run runs the suite with OPENAPI_TRAFFIC_DIR set, then this
// file again with OPENAPI_TRAFFIC_CHECK=1. That pass fails when nothing was recorded (a check with nothing to check
// passes whatever the document says); CI without OPENAPI_TRAFFIC_DIR fails too: its traffic would go unchecked.
const trafficDir = process.env[TRAFFIC_DIR_ENV];
const recordedTraffic = '/openapi.json describes the traffic the e2e suite recorded';
const checkRecorded = () => {
  it('every recorded exchange conforms', () => {
    const saved = trafficDir ? loadTraffic(trafficDir) : [];
    expect(saved.length, `no traffic recorded in ${TRAFFIC_DIR_ENV}=${trafficDir ?? '(unset)'}`).toBeGreaterThan(0);
    expect(problemsOf(saved).problems).toEqual([]);
  });
};
if (process.env.OPENAPI_TRAFFIC_CHECK === '1') describe(recordedTraffic, checkRecorded);
else if (inCI && trafficDir)
  describe.skip(
    `${recordedTraffic} (this run records it; checked after the suite with OPENAPI_TRAFFIC_CHECK=1)`,
    checkRecorded,
  );
else
  describeNeeding(
    {
      present: false,
      missing: `run the suite with ${TRAFFIC_DIR_ENV}=<dir>, then this file with OPENAPI_TRAFFIC_CHECK=1 (.ci/run does)`,
    },
    recordedTraffic,
    checkRecorded,
  );
