import { createHmac } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { openWhatsAppWindow } from '#test/support/whatsapp-window.ts';
import { startHttpDouble } from './send-doubles.ts';
import { startReceiver, type TestReceiver, webhookHeaders } from './webhooks-support.ts';

/**
 * Channel ingress as providers and customers see it: Twilio requests signed with Twilio's own
 * library, WhatsApp payloads as Meta documents them, mail over SMTP with nodemailer; what arrives is read from a
 * real webhook receiver and verified with the Standard Webhooks library.
 */
let svc: ServiceClient;
let receiver: TestReceiver;
let twilioApi: Awaited<ReturnType<typeof startHttpDouble>>;
let metaApi: Awaited<ReturnType<typeof startHttpDouble>>;
let projectId: string;
let signingSecret: string;
const channels: Record<string, any> = {};
const tokens: Record<string, string> = {};
const AUTH_TOKEN = 'twilio-auth-token-of-the-channel';
const APP_SECRET = 'meta-app-secret-of-the-channel';
const PHONE_NUMBER_ID = '106540352242922';

beforeAll(async () => {
  [svc, receiver, twilioApi, metaApi] = await Promise.all([
    sharedService(),
    startReceiver(),
    startHttpDouble({
      reply: (_req, i) => ({ status: 201, body: { sid: `SM${String(i).padStart(32, '0')}`, status: 'queued' } }),
    }),
    startHttpDouble({
      reply: (_req, i) => ({
        status: 200,
        body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.HBgLMTU1NTEyMzQ1Njc${i}` }] },
      }),
    }),
  ]);
  ({ projectId } = await svc.newProject({ companyId: 7001 }));
  const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
  });
  signingSecret = webhook.body.signingSecret;
  const create = async (name: string, body: Record<string, unknown>) => {
    const created = await svc.admin('POST', `/projects/${projectId}/channels`, { name, ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    channels[name] = created.body;
    tokens[name] = (
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: created.body.channelId,
      })
    ).body.token;
  };
  await create('twilio', {
    type: 'sms',
    address: '+15005550006',
    provider: { kind: 'twilio', accountSid: 'AC0123456789abcdef', authToken: AUTH_TOKEN, baseUrl: twilioApi.baseUrl },
  });
  await create('twilio-other', {
    type: 'sms',
    address: '+15005550007',
    provider: {
      kind: 'twilio',
      accountSid: 'AC0123456789abcdef',
      authToken: 'another-token',
      baseUrl: twilioApi.baseUrl,
    },
  });
  await create('whatsapp', {
    type: 'whatsapp',
    address: '+15551234567',
    provider: {
      kind: 'whatsapp-cloud',
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: 'EAAG-access',
      appSecret: APP_SECRET,
      baseUrl: metaApi.baseUrl,
    },
  });
  await create('sandbox-sms', { type: 'sms', address: '+15005550008' });
  await create('mailbox', { type: 'email', address: 'support@inbound.example.com' });
});
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close(), twilioApi?.close(), metaApi?.close()]);
});

/** Events the customer's receiver got for this project, verified, in arrival order. */
function events(filter: (e: any) => boolean = () => true): any[] {
  const wh = new Webhook(signingSecret);
  return receiver.received
    .filter((d) => d.json?.projectId === projectId)
    .map((d) => {
      wh.verify(d.body, webhookHeaders(d));
      return d.json;
    })
    .filter(filter);
}

async function waitForEvents(filter: (e: any) => boolean, count: number): Promise<any[]> {
  return eventually(
    async () => {
      const found = events(filter);
      return found.length >= count ? found : undefined;
    },
    15_000,
    `${count} events`,
  );
}

/** Posts a Twilio webhook as Twilio does: form-encoded, signed over the public URL and the sorted parameters. */
async function postTwilio(channelId: string, params: Record<string, string>, authToken = AUTH_TOKEN, tamper = false) {
  const url = `${svc.baseUrl}/inbound/twilio/${channelId}`;
  const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
  expect(twilio.validateRequest(authToken, signature, url, params)).toBe(true);
  const body = new URLSearchParams(params);
  if (tamper) body.set('Body', `${params.Body ?? ''}!`);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: body.toString(),
  });
}

function twilioStatus(sid: string, status: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AccountSid: 'AC0123456789abcdef',
    ApiVersion: '2010-04-01',
    From: '+15005550006',
    MessageSid: sid,
    MessageStatus: status,
    SmsSid: sid,
    SmsStatus: status,
    To: '+5511988887777',
    ...extra,
  };
}

async function postMeta(channelId: string, payload: unknown, secret = APP_SECRET) {
  const raw = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return fetch(`${svc.baseUrl}/inbound/whatsapp/${channelId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
    },
    body: raw,
  });
}

function metaWebhook(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15551234567', phone_number_id: PHONE_NUMBER_ID },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

describe('channel answers', () => {
  it('carry where providers report back, and the verify token for Meta, never the secrets', async () => {
    expect(channels.twilio.inbound).toEqual({ url: `${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}` });
    expect(channels.whatsapp.inbound).toEqual({
      url: `${svc.baseUrl}/inbound/whatsapp/${channels.whatsapp.channelId}`,
      verifyToken: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
    });
    expect(channels.mailbox.inbound).toEqual({ address: 'support@inbound.example.com' });
    expect(channels['sandbox-sms'].inbound).toBeUndefined();
    const again = await svc.admin('GET', `/projects/${projectId}/channels/${channels.whatsapp.channelId}`);
    expect(again.body.inbound).toEqual(channels.whatsapp.inbound);
    expect(JSON.stringify(again.body)).not.toContain(APP_SECRET);
    expect(again.body.provider.hasAppSecret).toBe(true);
  });
});

describe('Twilio', () => {
  it('delivery receipts become message.delivered and message.read, once each, with the send’s messageId', async () => {
    const sent = (await (await svc.send(tokens.twilio!, { to: '+5511988887777', body: 'hello' })).json()) as any;
    expect(sent.messageId).toMatch(/^msg_/);
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    for (const status of ['queued', 'sent', 'delivered', 'delivered', 'read', 'read']) {
      const answer = await postTwilio(channels.twilio.channelId, twilioStatus(sid, status));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/xml/);
      expect(await answer.text()).toBe('<Response></Response>');
    }
    const got = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type !== 'message.sent', 2);
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => e.type)).toEqual([
          'message.sent',
          'message.delivered',
          'message.read',
        ]),
      500,
    );
    expect(got[0]).toMatchObject({
      type: 'message.delivered',
      companyId: 7001,
      channel: { id: channels.twilio.channelId, type: 'sms', address: '+15005550006' },
      data: { messageId: sent.messageId, providerMessageId: sid, status: 'delivered', at: expect.any(String) },
    });

    const status = (await (
      await fetch(`${svc.baseUrl}/api/integration/messages/${sent.messageId}`, {
        headers: { authorization: `Bearer ${tokens.twilio}` },
      })
    ).json()) as any;
    expect(status.status).toBe('read');
    expect(status.history.map((h: any) => h.status)).toEqual(['sent', 'delivered', 'read']);
  });

  it('undelivered becomes message.failed with Twilio’s error; nothing after it', async () => {
    const sent = (await (await svc.send(tokens.twilio!, { to: '+5511988887777', body: 'nope' })).json()) as any;
    const sid = `SM${String(twilioApi.requests.length - 1).padStart(32, '0')}`;
    await postTwilio(channels.twilio.channelId, twilioStatus(sid, 'undelivered', { ErrorCode: '30003' }));
    const [failed] = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.failed', 1);
    expect(failed.data).toMatchObject({ status: 'failed', error: expect.stringContaining('30003') });
    // A late report once the message has failed (posted after the failure was applied: two reports in flight at once
    // are processed in either order, and `delivered` first then `undelivered` is a different story).
    await postTwilio(channels.twilio.channelId, twilioStatus(sid, 'delivered'));
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => e.type)).toEqual([
          'message.sent',
          'message.failed',
        ]),
      500,
    );
  });

  it('an incoming SMS with media becomes message.received; a retry of it is no second event', async () => {
    const inbound = {
      AccountSid: 'AC0123456789abcdef',
      ApiVersion: '2010-04-01',
      Body: 'Photo of the receipt',
      From: '+5511988887777',
      FromCity: 'SAO PAULO',
      FromCountry: 'BR',
      MediaContentType0: 'image/jpeg',
      // Twilio's media URL on the Twilio double, which answers JSON: fetched, and refused for its type (the media
      // themselves are test/e2e/conversations.test.ts's).
      MediaUrl0: `${twilioApi.baseUrl}/2010-04-01/Accounts/AC0123456789abcdef/Messages/MM1/Media/ME1`,
      MessageSid: 'MM11111111111111111111111111111111',
      NumMedia: '1',
      NumSegments: '1',
      SmsMessageSid: 'MM11111111111111111111111111111111',
      SmsSid: 'MM11111111111111111111111111111111',
      SmsStatus: 'received',
      To: '+15005550006',
    };
    expect((await postTwilio(channels.twilio.channelId, inbound)).status).toBe(200);
    expect((await postTwilio(channels.twilio.channelId, inbound)).status).toBe(200);
    const [received] = await waitForEvents((e) => e.type === 'message.received' && e.data.provider === 'twilio', 1);
    expect(received.data).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      conversationId: expect.stringMatching(/^conv_/),
      direction: 'inbound',
      provider: 'twilio',
      providerMessageId: 'MM11111111111111111111111111111111',
      from: '+5511988887777',
      to: '+15005550006',
      text: 'Photo of the receipt',
      media: [
        {
          contentType: 'application/json',
          error: 'Media of type application/json are not accepted',
          providerUrl: inbound.MediaUrl0,
        },
      ],
      receivedAt: expect.any(String),
    });
    await consistently(
      () => expect(events((e) => e.type === 'message.received' && e.data.provider === 'twilio')).toHaveLength(1),
      500,
    );
    const record = (await (
      await fetch(`${svc.baseUrl}/api/integration/messages/${received.data.messageId}`, {
        headers: { authorization: `Bearer ${tokens.twilio}` },
      })
    ).json()) as any;
    expect(record).toMatchObject({ direction: 'inbound', status: 'received', from: '+5511988887777' });
  });

  it('refuses wrong signatures (403, nothing recorded), unknown channels and other providers (404)', async () => {
    const before = events().length;
    const params = twilioStatus('SM00000000000000000000000000000000', 'delivered');
    const tampered = await postTwilio(channels.twilio.channelId, { ...params, Body: 'x' }, AUTH_TOKEN, true);
    expect(tampered.status).toBe(403);
    expect(((await tampered.json()) as any).error).toBe('INVALID_SIGNATURE');
    // Signed with another channel's auth token.
    expect((await postTwilio(channels.twilio.channelId, params, 'another-token')).status).toBe(403);
    const unsigned = await fetch(`${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    expect(unsigned.status).toBe(403);
    for (const channelId of ['ch_doesnotexist', channels.whatsapp.channelId, channels['sandbox-sms'].channelId]) {
      const answer = await postTwilio(channelId, params);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as any).error).toBe('CHANNEL_NOT_FOUND');
    }
    const huge = await fetch(`${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' },
      body: `Body=${'a'.repeat(1024 * 1024 + 10)}`,
    });
    expect(huge.status).toBe(413);
    // A status for a provider id this service never sent: 200, dropped.
    expect((await postTwilio(channels.twilio.channelId, params)).status).toBe(200);
    await consistently(() => expect(events()).toHaveLength(before), 700);
  });

  it('checks the signature over the URL exactly as requested: %20, +, reserved and UTF-8 escapes in the query', async () => {
    const base = `${svc.baseUrl}/inbound/twilio/${channels.twilio.channelId}`;
    const params = twilioStatus('SM0000000000000000000000000000q001', 'sent');
    const queries = [
      '?tag=a%20b',
      '?tag=a+b',
      '?note=caf%C3%A9%20com%20leite&ref=%2Fpedidos%2F42%3Fx%3D1%26y%3D2',
      '?next=/pedidos/42?x=1&at=user@example.org',
      "?sym=!'()*~",
      '?enc=%21%27%28%29%2A~',
      '?flag&sp=%20',
      '?empty=&sp=%20',
      '?emoji=%F0%9F%98%80&pct=100%25',
    ];
    for (const query of queries) {
      const url = base + query;
      const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params);
      expect(twilio.validateRequest(AUTH_TOKEN, signature, url, params), query).toBe(true);
      const post = (sig: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sig },
          body: new URLSearchParams(params).toString(),
        });
      const answer = await post(signature);
      expect(answer.status, query).toBe(200);
      expect(await answer.text()).toBe('<Response></Response>');
      // The same query, signed over another query or another token: still refused.
      const otherQuery = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${url}&x=1`, params);
      expect((await post(otherQuery)).status, query).toBe(403);
      expect((await post(twilio.getExpectedTwilioSignature('another-token', url, params))).status).toBe(403);
    }
  });
});

describe('WhatsApp Cloud', () => {
  it('answers Meta’s subscription check with the challenge for the right verify token only', async () => {
    const check = (token: string, mode = 'subscribe', channelId = channels.whatsapp.channelId) =>
      fetch(
        `${svc.baseUrl}/inbound/whatsapp/${channelId}?hub.mode=${mode}&hub.challenge=1158201444&hub.verify_token=${encodeURIComponent(token)}`,
      );
    const ok = await check(channels.whatsapp.inbound.verifyToken);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    expect((await check('wrong')).status).toBe(403);
    expect((await check(channels.whatsapp.inbound.verifyToken, 'unsubscribe')).status).toBe(403);
    expect((await check(channels.whatsapp.inbound.verifyToken, 'subscribe', channels.twilio.channelId)).status).toBe(
      404,
    );
  });

  it('read before delivered: message.read only; duplicates and later statuses emit nothing', async () => {
    // The contact wrote first: free-form messages go inside their 24-hour window.
    await openWhatsAppWindow(
      svc,
      {
        projectId,
        channelId: channels.whatsapp.channelId,
        token: tokens.whatsapp!,
        cloud: { appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID },
      },
      '5511988887777',
    );
    const sent = (await (
      await svc.send(tokens.whatsapp!, { number: '5511988887777', message: 'hello' })
    ).json()) as any;
    expect(sent.messageId).toMatch(/^msg_/);
    const wamid = `wamid.HBgLMTU1NTEyMzQ1Njc${metaApi.requests.length - 1}`;
    const status = (s: string, ts: number) =>
      metaWebhook({
        statuses: [
          {
            id: wamid,
            status: s,
            timestamp: String(ts),
            recipient_id: '5511988887777',
            conversation: { id: 'c1', origin: { type: 'service' } },
            pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
          },
        ],
      });
    // Separate webhooks may be processed in any order: `delivered` and the repeated `read` go once `read` is applied.
    for (const [s, ts] of [
      ['sent', 1700000000],
      ['read', 1700000010],
    ] as const) {
      expect((await postMeta(channels.whatsapp.channelId, status(s, ts))).status).toBe(200);
    }
    const [read] = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.read', 1);
    for (const [s, ts] of [
      ['delivered', 1700000005],
      ['read', 1700000010],
    ] as const) {
      expect((await postMeta(channels.whatsapp.channelId, status(s, ts))).status).toBe(200);
    }
    expect(read.data).toEqual({
      messageId: sent.messageId,
      conversationId: expect.stringMatching(/^conv_/),
      providerMessageId: wamid,
      status: 'read',
      at: new Date(1700000010 * 1000).toISOString(),
    });
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => e.type)).toEqual([
          'message.sent',
          'message.read',
        ]),
      500,
    );
  });

  it('a failed status carries Meta’s error', async () => {
    const sent = (await (await svc.send(tokens.whatsapp!, { number: '5511988887777', message: 'x' })).json()) as any;
    const wamid = `wamid.HBgLMTU1NTEyMzQ1Njc${metaApi.requests.length - 1}`;
    await postMeta(
      channels.whatsapp.channelId,
      metaWebhook({
        statuses: [
          {
            id: wamid,
            status: 'failed',
            timestamp: '1700000100',
            recipient_id: '5511988887777',
            errors: [
              {
                code: 131026,
                title: 'Message undeliverable',
                message: 'Message undeliverable',
                error_data: { details: 'Message Undeliverable.' },
              },
            ],
          },
        ],
      }),
    );
    const [failed] = await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.failed', 1);
    expect(failed.data.error).toContain('131026');
  });

  it('messages with text, image and document become message.received with the contact and media', async () => {
    const payload = metaWebhook({
      contacts: [{ profile: { name: 'Maria Souza' }, wa_id: '5511977776666' }],
      messages: [
        { from: '5511977776666', id: 'wamid.IN1', timestamp: '1700000200', type: 'text', text: { body: 'Oi!' } },
        {
          from: '5511977776666',
          id: 'wamid.IN2',
          timestamp: '1700000201',
          type: 'image',
          image: { caption: 'the invoice', mime_type: 'image/jpeg', sha256: 'abc', id: '1479537139650973' },
        },
        {
          from: '5511977776666',
          id: 'wamid.IN3',
          timestamp: '1700000202',
          type: 'document',
          document: { filename: 'contract.pdf', mime_type: 'application/pdf', sha256: 'def', id: '4004' },
        },
      ],
    });
    expect((await postMeta(channels.whatsapp.channelId, payload)).status).toBe(200);
    // Meta retries the whole batch: no second events.
    expect((await postMeta(channels.whatsapp.channelId, payload)).status).toBe(200);
    const fromMaria = (e: any) => e.type === 'message.received' && e.data.from === '5511977776666';
    const got = await waitForEvents(fromMaria, 3);
    await consistently(() => expect(events(fromMaria)).toHaveLength(3), 500);
    const byId = Object.fromEntries(got.map((e) => [e.data.providerMessageId, e.data]));
    expect(byId['wamid.IN1']).toMatchObject({
      direction: 'inbound',
      from: '5511977776666',
      to: '15551234567',
      text: 'Oi!',
      contact: { name: 'Maria Souza' },
      receivedAt: new Date(1700000200 * 1000).toISOString(),
    });
    // The Graph API double knows no media: each item says why it is missing (fetching is conversations.test.ts's).
    expect(byId['wamid.IN2']).toMatchObject({
      text: 'the invoice',
      media: [{ contentType: 'image/jpeg', error: expect.any(String), providerMediaId: '1479537139650973' }],
    });
    expect(byId['wamid.IN3'].media).toEqual([
      { contentType: 'application/pdf', error: expect.any(String), fileName: 'contract.pdf', providerMediaId: '4004' },
    ]);
  });

  it('bad signatures are refused; signed JSON that does not parse is 200 and emits nothing', async () => {
    const before = events().length;
    const payload = metaWebhook({ messages: [{ from: '1', id: 'wamid.BAD', timestamp: '1', type: 'text' }] });
    expect((await postMeta(channels.whatsapp.channelId, payload, 'other-secret')).status).toBe(403);
    const unsigned = await fetch(`${svc.baseUrl}/inbound/whatsapp/${channels.whatsapp.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(unsigned.status).toBe(403);
    expect(((await unsigned.json()) as any).error).toBe('INVALID_SIGNATURE');
    expect(
      (await postMeta(channels.whatsapp.channelId, '{"object": "whatsapp_business_account", "entry": [')).status,
    ).toBe(200);
    expect((await postMeta(channels.twilio.channelId, payload)).status).toBe(404);
    await consistently(() => expect(events()).toHaveLength(before), 700);
  });
});

describe('WhatsApp Cloud, large batches', () => {
  it('a signed 400 KB batch is parked in S3 and still becomes its event; over 3 MB is refused', async () => {
    const payload = metaWebhook({
      messages: [
        { from: '5511900001111', id: 'wamid.LARGE', timestamp: '1700000300', type: 'text', text: { body: 'big' } },
      ],
      padding: 'x'.repeat(400 * 1024),
    });
    expect((await postMeta(channels.whatsapp.channelId, payload)).status).toBe(200);
    const [event] = await waitForEvents((e) => e.data.providerMessageId === 'wamid.LARGE', 1);
    expect(event.data.text).toBe('big');
    const tooLarge = await postMeta(channels.whatsapp.channelId, { padding: 'x'.repeat(3 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
  });
});

describe('sandbox simulation', () => {
  it('a simulated reply and receipts arrive as the providers’ would', async () => {
    const base = `/projects/${projectId}/channels/${channels['sandbox-sms'].channelId}/sandbox`;
    const reply = await svc.admin('POST', `${base}/inbound`, { from: '+5511955554444', text: 'yes please' });
    expect(reply.status).toBe(202);
    expect(reply.body.eventId).toMatch(/^evt_/);
    const [received] = await waitForEvents((e) => e.id === reply.body.eventId, 1);
    expect(received).toMatchObject({
      type: 'message.received',
      data: {
        direction: 'inbound',
        provider: 'sandbox',
        from: '+5511955554444',
        to: '+15005550008',
        text: 'yes please',
      },
    });

    const sent = (await (await svc.send(tokens['sandbox-sms']!, { to: '+5511955554444', body: 'hi' })).json()) as any;
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'delivered' })).status).toBe(
      202,
    );
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'delivered' })).status).toBe(
      202,
    );
    const failed = await svc.admin('POST', `${base}/status`, {
      messageId: sent.messageId,
      status: 'failed',
      error: 'handset off',
    });
    expect(failed.status).toBe(202);
    await waitForEvents((e) => e.data.messageId === sent.messageId && e.type === 'message.failed', 1);
    await consistently(
      () =>
        expect(events((e) => e.data.messageId === sent.messageId).map((e) => [e.type, e.data.error])).toEqual([
          ['message.sent', undefined],
          ['message.delivered', undefined],
          ['message.failed', 'handset off'],
        ]),
      300,
    );

    expect((await svc.admin('POST', `${base}/status`, { messageId: 'msg_unknown', status: 'read' })).status).toBe(404);
    expect((await svc.admin('POST', `${base}/status`, { messageId: sent.messageId, status: 'bogus' })).status).toBe(
      400,
    );
    const twilioBase = `/projects/${projectId}/channels/${channels.twilio.channelId}/sandbox`;
    const conflict = await svc.admin('POST', `${twilioBase}/inbound`, { from: '+1', text: 'x' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('CONFLICT');
  });
});

describe('inbound mail', () => {
  const transport = () =>
    nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true });

  it('refuses mail for an address that is no channel’s, at RCPT', async () => {
    const error = await transport()
      .sendMail({ from: 'a@example.org', to: 'nobody@inbound.example.com', subject: 'x', text: 'x' })
      .catch((e: unknown) => e as { responseCode?: number; code?: string });
    expect((error as { responseCode?: number }).responseCode).toBe(550);
  });

  it('a multipart mail with an attachment and a Latin-1 body becomes message.received, once per mail sent', async () => {
    const mail = {
      from: '"José Álvares" <jose@example.org>',
      to: 'Support <support@inbound.example.com>',
      cc: 'finance@example.org',
      subject: 'Fatura de março',
      text: 'Olá, segue a fatura. Obrigado — José',
      html: '<p>Olá, segue a <b>fatura</b>.</p><script>alert(1)</script>',
      textEncoding: 'quoted-printable' as const,
      messageId: '<fatura-123@example.org>',
      inReplyTo: '<our-first-mail@inbound.example.com>',
      references: ['<our-first-mail@inbound.example.com>'],
      attachments: [
        { filename: 'fatura.pdf', content: Buffer.from('%PDF-1.4 fake invoice'), contentType: 'application/pdf' },
      ],
    };
    // Sent twice: two mails accepted (250 each), as SES would take them: two events, whatever their Message-ID says.
    // Only a redelivery of the same stored mail is one event (below).
    await transport().sendMail(mail);
    await transport().sendMail(mail);
    const [received, again] = await waitForEvents(
      (e) => e.type === 'message.received' && e.channel.id === channels.mailbox.channelId,
      2,
    );
    expect(again.data.messageId).not.toBe(received.data.messageId);
    expect(again.data.providerMessageId).toBe('<fatura-123@example.org>');
    expect(received.data).toEqual({
      messageId: expect.stringMatching(/^msg_/),
      conversationId: expect.stringMatching(/^conv_/),
      direction: 'inbound',
      provider: 'smtp',
      providerMessageId: '<fatura-123@example.org>',
      from: 'jose@example.org',
      to: 'support@inbound.example.com',
      text: 'Olá, segue a fatura. Obrigado — José',
      receivedAt: expect.any(String),
      subject: 'Fatura de março',
      html: '<p>Olá, segue a <b>fatura</b>.</p><script>alert(1)</script>',
      cc: ['finance@example.org'],
      inReplyTo: '<our-first-mail@inbound.example.com>',
      references: ['<our-first-mail@inbound.example.com>'],
      attachments: [{ fileName: 'fatura.pdf', contentType: 'application/pdf', bytes: 21 }],
      media: [
        {
          contentType: 'application/pdf',
          size: 21,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          url: expect.any(String),
          expiresAt: expect.any(String),
          fileName: 'fatura.pdf',
        },
      ],
      // The local listener checks nothing of the sender.
      authentication: { spf: 'unknown', dkim: 'unknown', dmarc: 'unknown' },
    });

    const latin1 = [
      'From: Ana <ana@example.org>',
      'To: support@inbound.example.com',
      'Subject: =?ISO-8859-1?Q?Solicita=E7=E3o?=',
      'Message-ID: <latin1-1@example.org>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=ISO-8859-1',
      'Content-Transfer-Encoding: 8bit',
      '',
      '',
    ].join('\r\n');
    // A Latin-1 body, byte for byte (nodemailer itself would encode in UTF-8).
    await transport().sendMail({
      envelope: { from: 'ana@example.org', to: ['support@inbound.example.com'] },
      raw: Buffer.concat([Buffer.from(latin1, 'latin1'), Buffer.from('Não consigo acessar a conta.\r\n', 'latin1')]),
    });
    const [latin] = await waitForEvents((e) => e.data.providerMessageId === '<latin1-1@example.org>', 1);
    expect(latin.data).toMatchObject({ subject: 'Solicitação', text: 'Não consigo acessar a conta.', attachments: [] });
    // Sent twice over SMTP: two deliveries to the transport, two events (not deduplicated on Message-ID).
    await consistently(
      () => expect(events((e) => e.data.providerMessageId === '<fatura-123@example.org>')).toHaveLength(2),
      500,
    );
  });

  /**
   * What SES does on AWS, done by hand: the raw mail stored under SES's prefix, then its receipt notification on the
   * `inbound` queue (SNS to SQS delivers at least once, so the same notification may come twice).
   */
  async function deliverAsSes(
    sesMessageId: string,
    raw: string,
    verdicts: Record<string, string> = {},
  ): Promise<{ queue: () => Promise<void> }> {
    const { region, awsEndpoint, bucketNames, queueUrls } = svc.emulators;
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const objectKey = `${SES_OBJECT_PREFIX}${sesMessageId}`;
    const s3 = new S3Client({ region, endpoint: awsEndpoint, credentials, forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: bucketNames.transfer, Key: objectKey, Body: raw }));
    s3.destroy();
    const notification = {
      notificationType: 'Received',
      mail: { timestamp: new Date().toISOString(), messageId: sesMessageId, destination: [channels.mailbox.address] },
      receipt: {
        timestamp: new Date().toISOString(),
        recipients: [channels.mailbox.address],
        ...Object.fromEntries(Object.entries(verdicts).map(([name, status]) => [`${name}Verdict`, { status }])),
        action: { type: 'S3', bucketName: bucketNames.transfer, objectKey },
      },
    };
    return {
      async queue() {
        const sqs = new SQSClient({ region, endpoint: awsEndpoint, credentials });
        await sqs.send(
          new SendMessageCommand({ QueueUrl: queueUrls.inbound, MessageBody: JSON.stringify(notification) }),
        );
        sqs.destroy();
      },
    };
  }

  const rawMail = (messageId: string, subject: string, from = 'carla@example.org') =>
    [
      `From: Carla <${from}>`,
      `To: ${channels.mailbox.address}`,
      `Subject: ${subject}`,
      `Message-ID: ${messageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${subject} body`,
      '',
    ].join('\r\n');

  it('one SES delivery notified twice is one event; another delivery with the same Message-ID is another', async () => {
    const first = await deliverAsSes('ses-redelivered-1', rawMail('<claimed@example.org>', 'Primeira'), {
      spam: 'PASS',
      virus: 'PASS',
      spf: 'PASS',
      dkim: 'PASS',
      dmarc: 'PASS',
    });
    await first.queue();
    await first.queue();
    // A later genuine mail whose sender reused the Message-ID: not suppressed.
    await (await deliverAsSes('ses-redelivered-2', rawMail('<claimed@example.org>', 'Segunda'))).queue();
    const received = await waitForEvents((e) => e.data.providerMessageId === '<claimed@example.org>', 2);
    expect(received.map((e) => e.data.subject).sort()).toEqual(['Primeira', 'Segunda']);
    expect(received.find((e) => e.data.subject === 'Primeira').data.authentication).toEqual({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
    });
    await consistently(
      () => expect(events((e) => e.data.providerMessageId === '<claimed@example.org>')).toHaveLength(2),
      1_000,
    );
  });

  it('SES spam or virus FAIL: dropped, no event; a spoofed sender (SPF and DMARC FAIL) arrives flagged', async () => {
    await (
      await deliverAsSes('ses-spam-1', rawMail('<spam@example.org>', 'Ganhe'), { spam: 'FAIL', virus: 'PASS' })
    ).queue();
    await (
      await deliverAsSes('ses-virus-1', rawMail('<virus@example.org>', 'Anexo'), { spam: 'PASS', virus: 'FAIL' })
    ).queue();
    await (
      await deliverAsSes('ses-spoofed-1', rawMail('<spoof@example.org>', 'Banco', 'ceo@bank.example'), {
        spam: 'PASS',
        virus: 'PASS',
        spf: 'FAIL',
        dkim: 'GRAY',
        dmarc: 'FAIL',
      })
    ).queue();
    const [spoofed] = await waitForEvents((e) => e.data.providerMessageId === '<spoof@example.org>', 1);
    expect(spoofed.data).toMatchObject({
      from: 'ceo@bank.example',
      authentication: { spf: 'fail', dkim: 'none', dmarc: 'fail' },
    });
    await consistently(
      () =>
        expect(events((e) => ['<spam@example.org>', '<virus@example.org>'].includes(e.data.providerMessageId))).toEqual(
          [],
        ),
      1_000,
    );
  });
});
