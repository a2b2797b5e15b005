import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { deflateSync } from 'node:zlib';
import nodemailer from 'nodemailer';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistently, eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startHttpDouble, startSmtpDouble } from './send-doubles.ts';
import { dsnMail, postMetaWebhook, projectWithWebhook } from './channel-support.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Conversations as a messaging platform runs them, seen from outside: sends answered by the service,
 * events read from a real webhook receiver (Standard Webhooks verified), providers played by doubles that speak their
 * real formats: Meta's media lookup and download and its template messages, Twilio's `NumMedia`/`MediaUrl0` (with
 * basic auth and a redirect to its media host), MIME attachments and a DSN through the SMTP listener.
 */
let svc: ServiceClient;
let receiver: TestReceiver;
let media: MediaDouble;
let cdn: MediaDouble;
let metaApi: Awaited<ReturnType<typeof startHttpDouble>>;
let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;

const APP_SECRET = 'meta-app-secret-of-the-channel';
const ACCESS_TOKEN = 'EAAG-conversations-token';
const TWILIO_SID = 'AC00000000000000000000000000000030';
const TWILIO_TOKEN = 'twilio-auth-token-30';

beforeAll(async () => {
  [svc, receiver, media, cdn, smtp] = await Promise.all([
    sharedService(),
    startReceiver(),
    startMediaDouble(),
    startMediaDouble(),
    startSmtpDouble(),
  ]);
  metaApi = await startHttpDouble({
    reply: (req, i) => {
      // Meta's media object: `GET /v21.0/{media-id}`.
      if (req.method === 'GET') {
        const object = metaLookups.get(req.path.split('?')[0]!.split('/').pop()!);
        return object
          ? { status: 200, body: { messaging_product: 'whatsapp', id: req.path.split('/').pop(), ...object } }
          : {
              status: 404,
              body: { error: { message: 'Unsupported get request.', type: 'GraphMethodException', code: 100 } },
            };
      }
      const body = JSON.parse(req.body || '{}');
      if (body.template?.name === 'wrong_vars')
        return {
          status: 400,
          body: {
            error: {
              message: '(#132000) Number of parameters does not match the expected number of params',
              type: 'OAuthException',
              code: 132000,
              fbtrace_id: 'AbCdEf',
            },
          },
        };
      return { status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.CONV${i}` }] } };
    },
  });
});
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close(), media?.close(), cdn?.close(), metaApi?.close(), smtp?.close()]);
});

// ---------------------------------------------------------------------------------------------------------------
// Doubles and helpers

interface MediaRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

interface MediaDouble {
  baseUrl: string;
  requests: MediaRequest[];
  /** path → what to answer. */
  routes: Map<string, (req: MediaRequest) => { status: number; headers?: Record<string, string>; body?: Buffer }>;
  close(): Promise<void>;
}

/** An HTTP server that answers bytes, JSON or redirects by path, and records who asked with which credentials. */
async function startMediaDouble(): Promise<MediaDouble> {
  const requests: MediaRequest[] = [];
  const routes: MediaDouble['routes'] = new Map();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const recorded = { path, headers: req.headers };
    requests.push(recorded);
    const route = routes.get(path);
    const answer = route ? route(recorded) : { status: 404, body: Buffer.from('{"error":"not found"}') };
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    routes,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A real PNG (1x1, grey) padded with a text chunk to about `size` bytes. */
function png(size = 600): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  const padding = Buffer.concat([Buffer.from('pad\0'), randomBytes(Math.max(0, size - 90))]);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('tEXt', padding),
    chunk('IDAT', deflateSync(Buffer.from([0, 128]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A project with a general webhook to the receiver; its events, verified, in arrival order. */
const project = () => projectWithWebhook(svc, receiver);

async function send(token: string, body: unknown) {
  const res = await svc.send(token, body);
  return { status: res.status, body: (await res.json()) as any };
}

async function api(token: string, path: string) {
  const res = await fetch(`${svc.baseUrl}/api/integration${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as any };
}

function postMeta(channelId: string, phoneNumberId: string, value: Record<string, unknown>) {
  return postMetaWebhook(svc.baseUrl, { channelId, phoneNumberId, appSecret: APP_SECRET }, value);
}

async function postTwilio(channelId: string, params: Record<string, string>) {
  const url = `${svc.baseUrl}/inbound/twilio/${channelId}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilio.getExpectedTwilioSignature(TWILIO_TOKEN, url, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  expect(res.status).toBe(200);
}

const mailer = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true });

let phoneNumberSeq = 0;
async function whatsAppCloud(p: Awaited<ReturnType<typeof project>>) {
  const phoneNumberId = `30${Date.now()}${phoneNumberSeq++}`;
  const channel = await p.channel({
    type: 'whatsapp',
    address: '+15551230000',
    credits: 10,
    provider: {
      kind: 'whatsapp-cloud',
      phoneNumberId,
      accessToken: ACCESS_TOKEN,
      appSecret: APP_SECRET,
      baseUrl: metaApi.baseUrl,
    },
  });
  return Object.assign(channel, { phoneNumberId });
}

const unixSeconds = (ms: number) => String(Math.floor(ms / 1000));

// ---------------------------------------------------------------------------------------------------------------

describe('the WhatsApp 24-hour window', () => {
  it('sandbox: a message before the contact wrote is 409 WINDOW_CLOSED (closedAt null), nothing sent or charged; after it, 200', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'whatsapp', address: '+15551230001', credits: 5 });
    const closed = await send(ch.token, { number: '5511988880001', message: 'Olá!' });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ success: false, error: 'WINDOW_CLOSED', closedAt: null });
    expect(closed.body.requestId).toEqual(expect.any(String));
    const outbox = await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}/outbox`);
    expect(outbox.body.items).toEqual([]);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(5);

    const before = await api(ch.token, '/conversations/5511988880001');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      conversationId: expect.stringMatching(/^conv_[a-z0-9]{20}$/),
      contact: '5511988880001',
      window: { open: false, closesAt: null },
      optedOut: false,
    });

    // A template goes at any time.
    const template = await send(ch.token, {
      number: '5511988880001',
      template: { name: 'order_update', language: 'pt_BR', variables: ['Maria', '#1042'] },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(200);

    // The contact writes: the window opens for 24 h from their message.
    const reply = await svc.admin('POST', `/projects/${p.projectId}/channels/${ch.channelId}/sandbox/inbound`, {
      from: '5511988880001',
      text: 'Sim, pode mandar',
    });
    expect(reply.status).toBe(202);
    const [received] = await p.waitFor((e) => e.id === reply.body.eventId);
    const open = await api(ch.token, '/conversations/%2B5511988880001');
    expect(open.body.window.open).toBe(true);
    expect(Date.parse(open.body.window.closesAt) - Date.parse(received.data.receivedAt)).toBe(24 * 3600 * 1000);
    const sent = await send(ch.token, { number: '5511988880001', message: 'Obrigado!' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(3);

    // One conversation id on every message event of the contact, as the conversation route gives it.
    const all = await p.waitFor((e) => e.type.startsWith('message.'), 3);
    expect(new Set(all.map((e) => e.data.conversationId))).toEqual(new Set([before.body.conversationId]));
    expect(all.find((e) => e.data.messageId === template.body.messageId).data.payload.template).toEqual({
      name: 'order_update',
      language: 'pt_BR',
      variables: ['Maria', '#1042'],
    });
  });

  it('WhatsApp Cloud: a contact who last wrote two days ago gets WINDOW_CLOSED with the time it closed; no call to Meta', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const wroteAt = Date.now() - 2 * 24 * 3600 * 1000;
    await postMeta(ch.channelId, ch.phoneNumberId, {
      contacts: [{ profile: { name: 'Ana' }, wa_id: '5511988880002' }],
      messages: [
        {
          from: '5511988880002',
          id: `wamid.OLD${Date.now()}`,
          timestamp: unixSeconds(wroteAt),
          type: 'text',
          text: { body: 'oi' },
        },
      ],
    });
    await p.waitFor((e) => e.type === 'message.received');
    const calls = metaApi.requests.length;
    const closed = await send(ch.token, { number: '5511988880002', message: 'still there?' });
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('WINDOW_CLOSED');
    expect(closed.body.closedAt).toBe(new Date(Math.floor(wroteAt / 1000) * 1000 + 24 * 3600 * 1000).toISOString());
    expect(metaApi.requests.length).toBe(calls);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(10);
    expect((await api(ch.token, '/conversations/5511988880002')).body.window).toEqual({
      open: false,
      closesAt: closed.body.closedAt,
    });
  });

  it('templates go to Meta as its template message; wrong variables are Meta’s 502 with its code, refunded', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const ok = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'shipping_update', language: 'en_US', variables: ['Ana', 'tomorrow'] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const request = metaApi.requests.at(-1)!;
    expect(request.path).toBe(`/v21.0/${ch.phoneNumberId}/messages`);
    expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511988880003',
      type: 'template',
      template: {
        name: 'shipping_update',
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: 'tomorrow' },
            ],
          },
        ],
      },
    });
    const noVariables = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'hello_world', language: 'en_US' },
    });
    expect(noVariables.status).toBe(200);
    expect(JSON.parse(metaApi.requests.at(-1)!.body).template).toEqual({
      name: 'hello_world',
      language: { code: 'en_US' },
    });

    const wrong = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'wrong_vars', language: 'en_US', variables: ['only one'] },
    });
    expect(wrong.status).toBe(502);
    expect(wrong.body.error).toBe('PROVIDER_ERROR');
    expect(wrong.body.message).toContain('132000');
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(8);

    const both = await send(ch.token, {
      number: '5511988880003',
      message: 'x',
      template: { name: 'hello_world', language: 'en_US' },
    });
    expect(both.status).toBe(400);
    const bad = await send(ch.token, {
      number: '5511988880003',
      template: { name: 'Hello World', language: 'english' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.path).sort()).toEqual(['template.language', 'template.name']);
  });
});

describe('opt-outs', () => {
  it('STOP suppresses the contact: contact.opted_out, 409 RECIPIENT_OPTED_OUT without provider call or credit; START restores', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550030', credits: 5 });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    const stop = await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: '  stop ' });
    expect(stop.status).toBe(202);
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    const conversation = await api(ch.token, '/conversations/%2B5511977770001');
    expect(optedOut).toMatchObject({
      channel: { id: ch.channelId, type: 'sms' },
      data: {
        contact: '+5511977770001',
        conversationId: conversation.body.conversationId,
        reason: 'keyword',
        keyword: 'STOP',
      },
    });
    expect(conversation.body).toEqual({
      conversationId: expect.any(String),
      contact: '+5511977770001',
      optedOut: true,
    });

    const refused = await send(ch.token, { to: '+5511977770001', body: 'Promo!' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('RECIPIENT_OPTED_OUT');
    expect(refused.body.details).toEqual([
      { path: 'to', message: expect.stringContaining('+5511977770001'), code: 'opted_out' },
    ]);
    expect((await svc.admin('GET', base)).body.credits).toBe(5);
    expect((await svc.admin('GET', `${base}/outbox`)).body.items).toEqual([]);

    const listed = await svc.admin('GET', `${base}/suppressions`);
    expect(listed.body).toEqual({
      items: [{ contact: '+5511977770001', reason: 'keyword', at: expect.any(String), keyword: 'STOP' }],
    });
    expect((await svc.admin('GET', `${base}/suppressions/%2B5511977770001`)).body.reason).toBe('keyword');

    // A second STOP changes nothing: no second event.
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: 'STOP' });
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: '+5511977770001', text: 'Voltar' });
    const [optedIn] = await p.waitFor((e) => e.type === 'contact.opted_in');
    expect(optedIn.data).toMatchObject({ contact: '+5511977770001', reason: 'keyword', keyword: 'VOLTAR' });
    await consistently(() => expect(p.events((e) => e.type.startsWith('contact.'))).toHaveLength(2), 300);
    expect((await send(ch.token, { to: '+5511977770001', body: 'Welcome back' })).status).toBe(200);
    expect((await svc.admin('GET', `${base}/suppressions`)).body.items).toEqual([]);
    expect((await svc.admin('GET', `${base}/suppressions/%2B5511977770001`)).status).toBe(404);
  });

  it('the management API lifts a suppression (contact.opted_in, reason admin); lists page; bad contacts are 400', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550031' });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    for (const n of [3, 1, 2])
      await svc.admin('POST', `${base}/sandbox/inbound`, { from: `+551197777000${n}`, text: 'CANCELAR' });
    await p.waitFor((e) => e.type === 'contact.opted_out', 3);
    const first = await svc.admin('GET', `${base}/suppressions?limit=2`);
    expect(first.body.items.map((s: any) => s.contact)).toEqual(['+5511977770001', '+5511977770002']);
    const second = await svc.admin('GET', `${base}/suppressions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((s: any) => s.contact)).toEqual(['+5511977770003']);
    expect(second.body.nextCursor ?? null).toBeNull();

    const lifted = await svc.admin('DELETE', `${base}/suppressions/%2B5511977770002`);
    expect(lifted.status).toBe(204);
    const [optedIn] = await p.waitFor((e) => e.type === 'contact.opted_in');
    expect(optedIn.data).toEqual({
      contact: '+5511977770002',
      conversationId: expect.stringMatching(/^conv_/),
      reason: 'admin',
    });
    expect((await svc.admin('DELETE', `${base}/suppressions/%2B5511977770002`)).status).toBe(404);
    expect((await send(ch.token, { to: '+5511977770002', body: 'hi' })).status).toBe(200);
    expect((await svc.admin('GET', `${base}/suppressions/not-a-number`)).status).toBe(400);
    expect((await api(ch.token, '/conversations/hello')).status).toBe(400);
  });

  it('per-channel keywords replace the defaults; an opted-out WhatsApp contact gets RECIPIENT_OPTED_OUT before the window check', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    expect(ch.optOutKeywords).toEqual(['STOP', 'PARAR', 'SAIR', 'CANCELAR', 'UNSUBSCRIBE']);
    expect(ch.optInKeywords).toEqual(['START', 'VOLTAR']);
    const patched = await svc.admin('PATCH', `/projects/${p.projectId}/channels/${ch.channelId}`, {
      optOutKeywords: ['PARE', 'Chega'],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.optOutKeywords).toEqual(['PARE', 'Chega']);
    const clash = await svc.admin('PATCH', `/projects/${p.projectId}/channels/${ch.channelId}`, {
      optInKeywords: ['pare'],
    });
    expect(clash.status).toBe(400);

    const old = Date.now() - 3 * 24 * 3600 * 1000;
    const message = (id: string, body: string, at: number) => ({
      messages: [{ from: '5511988880004', id, timestamp: unixSeconds(at), type: 'text', text: { body } }],
    });
    // STOP is no longer a keyword here; "chega" is, in any case. Both written three days ago: the window is closed.
    await postMeta(ch.channelId, ch.phoneNumberId, message(`wamid.K1${Date.now()}`, 'STOP', old));
    await postMeta(ch.channelId, ch.phoneNumberId, message(`wamid.K2${Date.now()}`, 'chega', old + 1000));
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(optedOut.data).toMatchObject({ contact: '5511988880004', reason: 'keyword', keyword: 'Chega' });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const calls = metaApi.requests.length;
    for (const body of [
      { number: '5511988880004', message: 'x' },
      { number: '5511988880004', template: { name: 'hello_world', language: 'en_US' } },
    ]) {
      const refused = await send(ch.token, body);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('RECIPIENT_OPTED_OUT');
    }
    expect(metaApi.requests.length).toBe(calls);
    expect((await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}`)).body.credits).toBe(10);
  });
});

describe('inbound media', () => {
  it('WhatsApp: Meta’s media id → URL → bytes with the access token, stored, offered as a working presigned URL, re-signed on GET', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const image = png(48_000);
    const mediaId = `${Date.now()}1`;
    // Meta's two steps: the media object (its URL on the lookaside host), then the bytes, both with the token.
    metaLookup(mediaId, {
      url: `${media.baseUrl}/lookaside/${mediaId}`,
      mime_type: 'image/png',
      sha256: sha256(image),
      file_size: image.length,
    });
    media.routes.set(`/lookaside/${mediaId}`, (req) =>
      req.headers.authorization === `Bearer ${ACCESS_TOKEN}`
        ? { status: 200, headers: { 'content-type': 'image/png' }, body: image }
        : { status: 401, body: Buffer.from('{}') },
    );
    const wamid = `wamid.IMG${Date.now()}`;
    await postMeta(ch.channelId, ch.phoneNumberId, {
      messages: [
        {
          from: '5511988880005',
          id: wamid,
          timestamp: unixSeconds(Date.now()),
          type: 'image',
          image: { caption: 'o recibo', mime_type: 'image/png', sha256: sha256(image), id: mediaId },
        },
      ],
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    expect(received.data.text).toBe('o recibo');
    expect(received.data.media).toEqual([
      {
        contentType: 'image/png',
        size: image.length,
        sha256: sha256(image),
        url: expect.stringMatching(/^http/),
        expiresAt: expect.any(String),
        providerMediaId: mediaId,
      },
    ]);
    const expires = Date.parse(received.data.media[0].expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(expires).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    const fetched = await fetch(received.data.media[0].url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await fetched.arrayBuffer()).equals(image)).toBe(true);
    // Fetched once, with the channel's token, from Meta's lookup and the media host.
    expect(metaApi.requests.filter((r) => r.path === `/v21.0/${mediaId}`).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
    ]);
    expect(media.requests.filter((r) => r.path === `/lookaside/${mediaId}`)).toHaveLength(1);

    const read = await api(ch.token, `/messages/${received.data.messageId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      messageId: received.data.messageId,
      conversationId: received.data.conversationId,
      direction: 'inbound',
      text: 'o recibo',
      media: [{ contentType: 'image/png', size: image.length, sha256: sha256(image), providerMediaId: mediaId }],
    });
    const again = await fetch(read.body.media[0].url);
    expect(Buffer.from(await again.arrayBuffer()).equals(image)).toBe(true);
  });

  it('a media item that cannot be fetched, is over 16 MB or of a refused type is media[].error; the message still arrives', async () => {
    const p = await project();
    const ch = await whatsAppCloud(p);
    const stamp = Date.now();
    const gone = `${stamp}2`;
    const huge = `${stamp}3`;
    const exe = `${stamp}4`;
    // `gone` has no lookup route: Meta answers 404.
    metaLookup(huge, {
      url: `${media.baseUrl}/lookaside/${huge}`,
      mime_type: 'video/mp4',
      file_size: 17 * 1024 * 1024,
    });
    const message = (id: string, type: string, content: Record<string, unknown>) => ({
      from: '5511988880006',
      id: `wamid.${id}`,
      timestamp: unixSeconds(Date.now()),
      type,
      [type]: content,
    });
    await postMeta(ch.channelId, ch.phoneNumberId, {
      messages: [
        message(gone, 'image', { mime_type: 'image/jpeg', id: gone }),
        message(huge, 'video', { mime_type: 'video/mp4', id: huge }),
        message(exe, 'document', { mime_type: 'application/x-msdownload', filename: 'setup.exe', id: exe }),
      ],
    });
    const got = await p.waitFor((e) => e.type === 'message.received', 3);
    const byId = Object.fromEntries(got.map((e) => [e.data.providerMessageId, e.data.media]));
    expect(byId[`wamid.${gone}`]).toEqual([
      { contentType: 'image/jpeg', error: expect.stringContaining('404'), providerMediaId: gone },
    ]);
    expect(byId[`wamid.${huge}`]).toEqual([
      { contentType: 'video/mp4', error: expect.stringContaining('larger than 16777216 bytes'), providerMediaId: huge },
    ]);
    expect(byId[`wamid.${exe}`]).toEqual([
      {
        contentType: 'application/x-msdownload',
        error: expect.stringContaining('not accepted'),
        fileName: 'setup.exe',
        providerMediaId: exe,
      },
    ]);
    // Nothing was downloaded for the oversized or refused items.
    expect(media.requests.some((r) => r.path === `/lookaside/${huge}`)).toBe(false);
    expect(metaApi.requests.some((r) => r.path === `/v21.0/${exe}`)).toBe(false);
  });

  it('Twilio MMS: NumMedia/MediaUrl0 fetched with the account’s basic auth, the redirect followed without it', async () => {
    const p = await project();
    const ch = await p.channel({
      type: 'sms',
      address: '+15005550032',
      provider: { kind: 'twilio', accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, baseUrl: media.baseUrl },
    });
    const photo = png(20_000);
    const sid = `MM${randomBytes(16).toString('hex')}`;
    const mediaPath = `/2010-04-01/Accounts/${TWILIO_SID}/Messages/${sid}/Media/ME${randomBytes(16).toString('hex')}`;
    const cdnPath = `/media-cdn/${sid}`;
    media.routes.set(mediaPath, (req) =>
      req.headers.authorization === `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`
        ? { status: 307, headers: { location: `${cdn.baseUrl}${cdnPath}` } }
        : { status: 401 },
    );
    cdn.routes.set(cdnPath, () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: photo }));
    await postTwilio(ch.channelId, {
      AccountSid: TWILIO_SID,
      ApiVersion: '2010-04-01',
      Body: 'foto',
      From: '+5511977770040',
      MediaContentType0: 'image/png',
      MediaUrl0: `${media.baseUrl}${mediaPath}`,
      MessageSid: sid,
      NumMedia: '1',
      NumSegments: '1',
      SmsMessageSid: sid,
      SmsSid: sid,
      SmsStatus: 'received',
      To: '+15005550032',
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    expect(received.data.media).toEqual([
      {
        contentType: 'image/png',
        size: photo.length,
        sha256: sha256(photo),
        url: expect.any(String),
        expiresAt: expect.any(String),
        providerUrl: `${media.baseUrl}${mediaPath}`,
      },
    ]);
    expect(Buffer.from(await (await fetch(received.data.media[0].url)).arrayBuffer()).equals(photo)).toBe(true);
    // The credentials went to Twilio's origin only, never to the host its redirect named.
    expect(cdn.requests.filter((r) => r.path === cdnPath).map((r) => r.headers.authorization)).toEqual([undefined]);
  });

  it('mail: MIME attachments through the SMTP listener become media with working URLs', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'email', address: `media-${Date.now()}@inbound.example.com` });
    const photo = png(30_000);
    const pdf = Buffer.from('%PDF-1.4\n% a small document\n');
    await mailer().sendMail({
      from: 'ana@example.org',
      to: ch.address,
      subject: 'Fotos',
      text: 'Seguem as fotos',
      attachments: [
        { filename: 'foto.png', content: photo, contentType: 'image/png' },
        { filename: 'nota fiscal.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'run.sh', content: Buffer.from('#!/bin/sh\n'), contentType: 'application/x-sh' },
      ],
    });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    const [image, doc, script] = received.data.media;
    expect(image).toMatchObject({
      contentType: 'image/png',
      size: photo.length,
      sha256: sha256(photo),
      fileName: 'foto.png',
    });
    expect(doc).toMatchObject({ contentType: 'application/pdf', size: pdf.length, fileName: 'nota fiscal.pdf' });
    expect(script).toEqual({
      contentType: 'application/x-sh',
      error: expect.stringContaining('not accepted'),
      fileName: 'run.sh',
    });
    expect(Buffer.from(await (await fetch(image.url)).arrayBuffer()).equals(photo)).toBe(true);
    const download = await fetch(doc.url);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
    // The metadata list is as before, every attachment.
    expect(received.data.attachments.map((a: any) => a.fileName)).toEqual(['foto.png', 'nota fiscal.pdf', 'run.sh']);
  });
});

describe('email: threads, List-Unsubscribe, bounces', () => {
  async function smtpChannel(p: Awaited<ReturnType<typeof project>>) {
    return p.channel({
      type: 'email',
      address: `shop-${Date.now()}-${phoneNumberSeq++}@inbound.example.com`,
      provider: { kind: 'smtp', host: '127.0.0.1', port: smtp.port, allowPlaintext: true },
    });
  }

  it('a reply joins the conversation of the mail it answers; sends carry List-Unsubscribe', async () => {
    const p = await project();
    const ch = await smtpChannel(p);
    const sent = await send(ch.token, { to: 'Cliente@Example.org', subject: 'Seu pedido', body: 'Chegou.' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const mail = await eventually(
      async () => smtp.mails.find((m) => m.rcptTo.some((r) => r.toLowerCase() === 'cliente@example.org')),
      5_000,
      `the mail (got ${smtp.mails.map((m) => m.rcptTo.join(',')).join('; ')})`,
    );
    // The recipient's own unsubscribe address: the channel's mailbox with a tag only this recipient's copy carries.
    const [local, domain] = ch.address.split('@');
    const unsubscribeAddress = new RegExp(
      `^<mailto:(${local}\\+unsub-[a-z2-7]{26}@${domain})\\?subject=unsubscribe>$`,
    ).exec(mail.headers['list-unsubscribe'] ?? '')?.[1];
    expect(unsubscribeAddress, mail.headers['list-unsubscribe']).toBeDefined();
    const [sentEvent] = await p.waitFor((e) => e.type === 'message.sent');
    const messageId = mail.headers['message-id']!;

    // The customer answers from another address, in the thread: same conversation.
    await mailer().sendMail({
      from: 'financeiro@example.org',
      to: ch.address,
      subject: 'Re: Seu pedido',
      text: 'Obrigado',
      inReplyTo: messageId,
      references: [messageId],
    });
    // A new mail from the same customer, not a reply: the contact's own conversation.
    await mailer().sendMail({ from: 'cliente@example.org', to: ch.address, subject: 'Outra coisa', text: 'Oi' });
    const got = await p.waitFor((e) => e.type === 'message.received', 2);
    const reply = got.find((e) => e.data.subject === 'Re: Seu pedido');
    const fresh = got.find((e) => e.data.subject === 'Outra coisa');
    expect(reply.data.conversationId).toBe(sentEvent.data.conversationId);
    expect(fresh.data.conversationId).toBe(
      (await api(ch.token, '/conversations/cliente@example.org')).body.conversationId,
    );
    expect(fresh.data.conversationId).toBe(sentEvent.data.conversationId);
    expect(reply.data.conversationId).not.toBe(
      (await api(ch.token, '/conversations/financeiro@example.org')).body.conversationId,
    );

    // The List-Unsubscribe mailto, as a mail client follows it: the contact is suppressed.
    await mailer().sendMail({ from: 'cliente@example.org', to: unsubscribeAddress, subject: 'unsubscribe', text: '' });
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(optedOut.data).toMatchObject({ contact: 'cliente@example.org', reason: 'keyword', keyword: 'unsubscribe' });
    const refused = await send(ch.token, { to: ['ok@example.org', 'CLIENTE@example.org'], subject: 'x', body: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([
      { path: 'to.1', message: expect.stringContaining('cliente@example.org'), code: 'opted_out' },
    ]);
  });

  it('a DSN about a mail this channel sent suppresses the bounced recipient (reason bounce); one about any other mail does not', async () => {
    const p = await project();
    const ch = await smtpChannel(p);
    const sent = await send(ch.token, { to: 'gone@customer.example.org', subject: 'Pedido', body: 'x' });
    expect(sent.status).toBe(200);
    const mail = await eventually(
      async () => smtp.mails.find((m) => m.rcptTo.includes('gone@customer.example.org') && m.raw.includes(ch.address)),
      5_000,
    );
    const dsn = (originalMessageId: string, recipient: string) => dsnMail(ch.address, originalMessageId, [recipient]);
    // A forged report about a mail this channel never sent: received, but nobody is suppressed.
    await mailer().sendMail({
      envelope: { from: '', to: [ch.address] },
      raw: dsn('<never-sent@elsewhere.example.org>', 'victim@customer.example.org'),
    });
    await mailer().sendMail({
      envelope: { from: '', to: [ch.address] },
      raw: dsn(mail.headers['message-id']!, 'gone@customer.example.org'),
    });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const [bounced] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(bounced.data).toEqual({
      contact: 'gone@customer.example.org',
      conversationId: (await api(ch.token, '/conversations/gone@customer.example.org')).body.conversationId,
      reason: 'bounce',
    });
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toHaveLength(1), 300);
    const refused = await send(ch.token, { to: 'gone@customer.example.org', subject: 'again', body: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.details[0].message).toContain('bounced');
    expect((await send(ch.token, { to: 'victim@customer.example.org', subject: 'ok', body: 'x' })).status).toBe(200);
    expect(
      (await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}/suppressions`)).body.items,
    ).toEqual([{ contact: 'gone@customer.example.org', reason: 'bounce', at: expect.any(String) }]);
  });
});

describe('a conversation’s messages', () => {
  it('both directions, newest first, a page at a time, for the custom token’s channel only', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'sms', address: '+15005550033' });
    const other = await p.channel({ type: 'sms', address: '+15005550034' });
    const base = `/projects/${p.projectId}/channels/${ch.channelId}`;
    const contact = '+5511977770050';
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: contact, text: 'um' });
    await p.waitFor((e) => e.type === 'message.received');
    const sent = await send(ch.token, { to: contact, body: 'dois' });
    await svc.admin('POST', `${base}/sandbox/inbound`, { from: contact, text: 'três' });
    await p.waitFor((e) => e.type === 'message.received', 2);
    const page = await eventually(async () => {
      const r = await api(ch.token, `/conversations/${encodeURIComponent(contact)}/messages?limit=2`);
      return r.body.items?.length === 2 ? r : undefined;
    });
    expect(page.body.items.map((m: any) => [m.direction, m.text])).toEqual([
      ['inbound', 'três'],
      ['outbound', 'dois'],
    ]);
    expect(page.body.items[1]).toMatchObject({ messageId: sent.body.messageId, status: 'sent', contact });
    const rest = await api(
      ch.token,
      `/conversations/${encodeURIComponent(contact)}/messages?limit=2&cursor=${page.body.nextCursor}`,
    );
    expect(rest.body.items.map((m: any) => m.text)).toEqual(['um']);
    expect(rest.body.nextCursor ?? null).toBeNull();
    expect(new Set([...page.body.items, ...rest.body.items].map((m: any) => m.conversationId)).size).toBe(1);
    // Another channel's token sees none of it, and a cursor of another list is refused.
    expect((await api(other.token, `/conversations/${encodeURIComponent(contact)}/messages`)).body.items).toEqual([]);
    expect(
      (await api(other.token, `/conversations/${encodeURIComponent(contact)}/messages?cursor=${page.body.nextCursor}`))
        .status,
    ).toBe(400);
  });
});

/** Meta's media object for `mediaId` (`GET /v21.0/{media-id}` on the Graph API double). */
function metaLookup(mediaId: string, object: Record<string, unknown>) {
  metaLookups.set(mediaId, object);
}
const metaLookups = new Map<string, Record<string, unknown>>();
