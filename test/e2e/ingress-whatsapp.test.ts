import { describe, expect, it } from 'vitest';
import { consistently } from '#test/support/eventually.ts';
import { openWhatsAppWindow } from '#test/support/whatsapp-window.ts';
import {
  svc,
  metaApi,
  projectId,
  channels,
  tokens,
  APP_SECRET,
  PHONE_NUMBER_ID,
  events,
  waitForEvents,
  postMeta,
  metaWebhook,
  useIngressChannels,
} from './ingress-support.ts';

/** Channel ingress, seen from outside: WhatsApp Cloud's messages and statuses, and its large batches. */
useIngressChannels();

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
