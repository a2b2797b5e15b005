import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import twilio from 'twilio';
import { MemoryConversations } from '#test/support/fakes/memory-conversations.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import { describe, expect, it } from 'vitest';
import type { Channel } from '#shared/messaging/channel.ts';
import { cacheChannels } from '#shared/messaging/inbound/channel-cache.ts';
import { inboundMessageId } from '#shared/messaging/inbound/apply-received.ts';
import { makeProcessInbound } from '#shared/messaging/inbound/process-inbound.ts';
import { reportsFromSesNotification } from '#shared/messaging/inbound/ses.ts';
import {
  metaSignature,
  twilioSignature,
  twilioUrlSpellings,
  verifyMetaSignature,
  verifyTwilioSignature,
  verifyTwilioSignatureOfAny,
} from '#shared/messaging/inbound/signatures.ts';
import { normaliseTwilio } from '#shared/messaging/inbound/twilio.ts';
import { normaliseWhatsApp } from '#shared/messaging/inbound/whatsapp.ts';

const param = fc.tuple(
  fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !k.includes('\u0000')),
  fc.string({ maxLength: 40 }),
);

describe('Twilio signatures', () => {
  it('equal what Twilio’s own library computes, for any parameters (unique names), and accept exactly that', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(param, { selector: ([k]) => k, maxLength: 8 }),
        fc.string({ maxLength: 20 }),
        (params, token) => {
          const url = 'https://api.example.com/prod/inbound/twilio/ch_abc?x=1';
          const expected = twilio.getExpectedTwilioSignature(token || 't', url, Object.fromEntries(params));
          expect(twilioSignature(token || 't', url, params)).toBe(expected);
          expect(verifyTwilioSignature(token || 't', url, params, expected)).toBe(true);
          expect(verifyTwilioSignature(token || 't', `${url}&y=2`, params, expected)).toBe(false);
          expect(verifyTwilioSignature(`${token}x`, url, params, expected)).toBe(false);
        },
      ),
    );
  });

  it('hold for the query as requested, in each common spelling, from the decoded pairs API Gateway passes', () => {
    const base = 'https://api.example.com/prod/inbound/twilio/ch_abc';
    const rfc3986 = (t: string) =>
      encodeURIComponent(t).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const spellings: ((pairs: [string, string][]) => string)[] = [
      (pairs) => pairs.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&'),
      (pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
      (pairs) => new URLSearchParams(pairs).toString(),
    ];
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.tuple(
            text.filter((k) => k.length > 0),
            text,
          ),
          { selector: ([k]) => k, maxLength: 4 },
        ),
        fc.nat(spellings.length - 1),
        (query, which) => {
          const params = { Body: 'hi', MessageSid: 'SM1' };
          const url = query.length ? `${base}?${spellings[which]!(query)}` : base;
          // What API Gateway hands the function: the query parsed, decoded.
          const decoded = [...new URL(url).searchParams];
          const signature = twilio.getExpectedTwilioSignature('tok', url, params);
          const urls = twilioUrlSpellings(base, decoded);
          expect(urls.length).toBeLessThanOrEqual(8);
          expect(verifyTwilioSignatureOfAny('tok', urls, Object.entries(params), signature)).toBe(true);
          expect(verifyTwilioSignatureOfAny('other', urls, Object.entries(params), signature)).toBe(false);
          const otherQuery = twilio.getExpectedTwilioSignature('tok', `${base}?x=${which}${url.length}`, params);
          expect(verifyTwilioSignatureOfAny('tok', urls, Object.entries(params), otherQuery)).toBe(false);
        },
      ),
    );
    // The case reported: `%20` in the query, which the form encoding would re-spell as `+`.
    const url = `${base}?tag=a%20b`;
    const signature = twilio.getExpectedTwilioSignature('tok', url, {});
    expect(verifyTwilioSignatureOfAny('tok', twilioUrlSpellings(base, [['tag', 'a b']]), [], signature)).toBe(true);
    expect(twilioUrlSpellings(base, [])).toEqual([base]);
  });

  it('refuses a missing, short or long signature without throwing', () => {
    const sig = twilioSignature('t', 'https://x', [['A', '1']]);
    for (const given of [undefined, '', sig.slice(0, -1), `${sig}=`, 'x'.repeat(200)])
      expect(verifyTwilioSignature('t', 'https://x', [['A', '1']], given)).toBe(false);
  });
});

describe('Meta signatures', () => {
  it('are sha256= + hex HMAC-SHA256 of the raw bytes; one changed byte fails', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), (bytes, at) => {
        const raw = Buffer.from(bytes);
        const header = `sha256=${createHmac('sha256', 'secret').update(raw).digest('hex')}`;
        expect(metaSignature('secret', raw)).toBe(header);
        expect(verifyMetaSignature('secret', raw, header)).toBe(true);
        expect(verifyMetaSignature('other', raw, header)).toBe(false);
        const changed = Buffer.from(raw);
        changed[at % changed.length] = (changed[at % changed.length]! + 1) % 256;
        expect(verifyMetaSignature('secret', changed, header)).toBe(false);
      }),
    );
  });
});

describe('normalising Twilio', () => {
  const base = { AccountSid: 'AC1', MessageSid: 'SM1', From: '+15005550006', To: '+5511988887777' };
  it('maps delivered, read, undelivered and failed; other statuses change nothing visible', () => {
    const status = (s: string, extra = {}) =>
      normaliseTwilio(new URLSearchParams({ ...base, MessageStatus: s, ...extra }), '2026-01-01T00:00:00.000Z');
    expect(status('delivered')).toMatchObject({ kind: 'status', status: 'delivered', providerMessageId: 'SM1' });
    expect(status('read')).toMatchObject({ status: 'read' });
    expect(status('undelivered', { ErrorCode: '30005' })).toMatchObject({
      status: 'failed',
      error: 'Twilio error 30005',
    });
    expect(status('failed')).toMatchObject({ status: 'failed' });
    for (const s of ['queued', 'sending', 'sent', 'accepted', 'scheduled'])
      expect(status(s)).toMatchObject({ status: 'ignored' });
  });

  it('an incoming message keeps its media, in order', () => {
    const fields = new URLSearchParams({
      ...base,
      SmsStatus: 'received',
      Body: '',
      NumMedia: '2',
      MediaUrl0: 'https://m/0',
      MediaContentType0: 'image/png',
      MediaUrl1: 'https://m/1',
      MediaContentType1: 'application/pdf',
    });
    expect(normaliseTwilio(fields, 't')).toMatchObject({
      kind: 'message',
      text: '',
      media: [
        { contentType: 'image/png', providerUrl: 'https://m/0' },
        { contentType: 'application/pdf', providerUrl: 'https://m/1' },
      ],
    });
  });
});

describe('normalising WhatsApp Cloud', () => {
  it('skips values for another phone number of the same app', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: 'OTHER' },
                statuses: [{ id: 'wamid.1', status: 'read', timestamp: '1' }],
              },
            },
          ],
        },
      ],
    };
    expect(normaliseWhatsApp(body, 'MINE')).toEqual([]);
    expect(normaliseWhatsApp(body, 'OTHER')).toHaveLength(1);
  });

  it('throws on JSON that is not a webhook', () => {
    for (const body of [null, 1, 'x', [], {}, { entry: 'x' }]) expect(() => normaliseWhatsApp(body, 'x')).toThrow();
  });

  it('never throws on arbitrary entries', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), (entry) => {
        expect(Array.isArray(normaliseWhatsApp({ entry }, 'x'))).toBe(true);
      }),
    );
  });
});

describe('inbound message ids', () => {
  it('are the same for the same report on the same channel, and differ across channels and providers', () => {
    expect(inboundMessageId('ch_a', 'twilio', 'SM1')).toBe(inboundMessageId('ch_a', 'twilio', 'SM1'));
    expect(inboundMessageId('ch_a', 'twilio', 'SM1')).toMatch(/^msg_[a-z0-9]{20}$/);
    expect(inboundMessageId('ch_b', 'twilio', 'SM1')).not.toBe(inboundMessageId('ch_a', 'twilio', 'SM1'));
    expect(inboundMessageId('ch_a', 'smtp', 'SM1')).not.toBe(inboundMessageId('ch_a', 'twilio', 'SM1'));
  });
});

describe('the worker’s channel cache', () => {
  it('asks once per channel within the TTL, again after it, and never remembers an unknown id or a failure', async () => {
    let t = 0;
    const asked: string[] = [];
    let fail = false;
    const cache = cacheChannels(
      {
        async findById(id) {
          asked.push(id);
          if (fail) throw new Error('down');
          return id === 'ch_known' ? ({ channelId: id } as Channel) : undefined;
        },
      },
      1000,
      () => t,
    );
    await Promise.all([cache.findById('ch_known'), cache.findById('ch_known')]);
    await cache.findById('ch_gone');
    await cache.findById('ch_gone');
    expect(asked).toEqual(['ch_known', 'ch_gone', 'ch_gone']);
    t = 1001;
    fail = true;
    await expect(cache.findById('ch_known')).rejects.toThrow('down');
    fail = false;
    expect(await cache.findById('ch_known')).toEqual({ channelId: 'ch_known' });
    expect(asked).toEqual(['ch_known', 'ch_gone', 'ch_gone', 'ch_known', 'ch_known']);
  });
});

describe('SES receipt notifications (inbound mail on AWS)', () => {
  const notification = {
    notificationType: 'Received',
    mail: { timestamp: '2026-01-02T03:04:05.000Z', messageId: 'ses-1' },
    receipt: {
      recipients: ['Support@Inbound.example.com', 'nobody@inbound.example.com'],
      action: { type: 'S3', bucketName: 'transfer', objectKey: 'payloads/inbound/email/ses/ses-1' },
    },
  };
  const find = async (address: string) =>
    address.toLowerCase() === 'support@inbound.example.com' ? [{ projectId: 'prj_1', channelId: 'ch_1' }] : [];

  it('become one report per email channel of the recipients (naming them), raw or wrapped by SNS', async () => {
    const expected = [
      {
        v: 1,
        source: 'email',
        projectId: 'prj_1',
        channelId: 'ch_1',
        receivedAt: Date.parse('2026-01-02T03:04:05.000Z'),
        bodyRef: 'payloads/inbound/email/ses/ses-1',
        ses: { messageId: 'ses-1', authentication: { spf: 'unknown', dkim: 'unknown', dmarc: 'unknown' } },
        // The envelope recipients that reached the channel: a mailed unsubscribe counts by them.
        recipients: ['Support@Inbound.example.com'],
      },
    ];
    expect(await reportsFromSesNotification(notification, find)).toEqual(expected);
    const wrapped = { Type: 'Notification', Message: JSON.stringify(notification) };
    expect(await reportsFromSesNotification(wrapped, find)).toEqual(expected);
  });

  it('leave anything else alone', async () => {
    for (const body of [{ v: 1, source: 'twilio' }, null, { notificationType: 'Bounce' }])
      expect(await reportsFromSesNotification(body, find)).toBeUndefined();
  });

  const withVerdicts = (verdicts: Record<string, string | undefined>) => ({
    ...notification,
    receipt: {
      ...notification.receipt,
      ...Object.fromEntries(
        Object.entries(verdicts)
          .filter(([, status]) => status !== undefined)
          .map(([name, status]) => [`${name}Verdict`, { status }]),
      ),
    },
  });

  it('carry SPF, DKIM and DMARC as pass / fail / none / unknown (GRAY: nothing to check; not checked: unknown)', async () => {
    const cases: [string | undefined, string][] = [
      ['PASS', 'pass'],
      ['FAIL', 'fail'],
      ['GRAY', 'none'],
      ['PROCESSING_FAILED', 'unknown'],
      ['DISABLED', 'unknown'],
      [undefined, 'unknown'],
      ['SOMETHING_NEW', 'unknown'],
    ];
    for (const [status, expected] of cases) {
      const [report] = (await reportsFromSesNotification(
        withVerdicts({ spam: 'PASS', virus: 'PASS', spf: status, dkim: status, dmarc: status }),
        find,
      ))!;
      expect(report!.ses!.authentication, String(status)).toEqual({ spf: expected, dkim: expected, dmarc: expected });
    }
    const [mixed] = (await reportsFromSesNotification(
      withVerdicts({ spf: 'FAIL', dkim: 'PASS', dmarc: 'GRAY' }),
      find,
    ))!;
    expect(mixed!.ses!.authentication).toEqual({ spf: 'fail', dkim: 'pass', dmarc: 'none' });
  });

  it('a mail SES judged spam or infected gives no report and is logged; GRAY or disabled scans do not drop', async () => {
    for (const verdicts of [{ spam: 'FAIL' }, { virus: 'FAIL' }, { spam: 'FAIL', virus: 'FAIL', spf: 'PASS' }]) {
      const logged: [string, Record<string, unknown> | undefined][] = [];
      const reports = await reportsFromSesNotification(withVerdicts(verdicts), find, {
        info: (message, extra) => logged.push([message, extra]),
      });
      expect(reports, JSON.stringify(verdicts)).toEqual([]);
      expect(logged).toEqual([
        [expect.stringMatching(/spam or infected/), expect.objectContaining({ sesMessageId: 'ses-1' })],
      ]);
    }
    for (const status of ['PASS', 'GRAY', 'PROCESSING_FAILED', 'DISABLED'])
      expect(await reportsFromSesNotification(withVerdicts({ spam: status, virus: status }), find)).toHaveLength(1);
  });
});

describe('received mail: identified by its delivery, never by its Message-ID', () => {
  const channel = {
    channelId: 'ch_mail',
    projectId: 'prj_1',
    companyId: 1,
    type: 'email',
    address: 'support@inbound.example.com',
    provider: { kind: 'smtp' },
  } as unknown as Channel;

  function worker() {
    const recorded = new Set<string>();
    const events = new RecordingPublisher();
    const process = makeProcessInbound({
      channels: { findById: async (id) => (id === channel.channelId ? channel : undefined) },
      statuses: {
        findByProviderId: async () => undefined,
        advance: async () => undefined,
        recordInbound: async (record) => {
          if (recorded.has(record.messageId)) return false;
          recorded.add(record.messageId);
          return true;
        },
        pendingEvents: async () => [],
        clearEvent: async () => {},
      },
      conversations: new MemoryConversations(),
      unsubscribe: { isAddressOf: () => false },
      events,
      rawReports: { get: async (key) => Buffer.from(key) },
      // Every mail claims the same Message-ID (the sender writes it).
      parseMail: async (_raw, to) => ({
        kind: 'message',
        provider: 'smtp',
        providerMessageId: '<same@example.org>',
        from: 'a@example.org',
        to,
        text: 'hi',
        receivedAt: '2026-01-01T00:00:00.000Z',
        email: { subject: 's', attachments: [] },
      }),
      log: { info: () => {}, warn: () => {} },
    }).process;
    return { process, published: events.envelopes };
  }

  async function reportsFor(sesMessageId: string, verdicts: Record<string, string> = {}) {
    return (await reportsFromSesNotification(
      {
        notificationType: 'Received',
        mail: { timestamp: '2026-01-02T03:04:05.000Z', messageId: sesMessageId },
        receipt: {
          recipients: [channel.address],
          ...Object.fromEntries(Object.entries(verdicts).map(([k, status]) => [`${k}Verdict`, { status }])),
          action: { type: 'S3', bucketName: 'transfer', objectKey: `payloads/inbound/email/ses/${sesMessageId}` },
        },
      },
      async () => [{ projectId: channel.projectId, channelId: channel.channelId }],
    ))!;
  }

  it('two deliveries with the same Message-ID are two message.received; a redelivered notification is one', async () => {
    const { process, published } = worker();
    const first = await reportsFor('ses-a');
    for (const report of [...first, ...first]) await process(report);
    for (const report of await reportsFor('ses-b')) await process(report);
    expect(published.map((e) => e.type)).toEqual(['message.received', 'message.received']);
    expect(published[0]!.data.messageId).not.toBe(published[1]!.data.messageId);
    expect(published.map((e) => e.data.providerMessageId)).toEqual(['<same@example.org>', '<same@example.org>']);
    expect(published[0]!.data).not.toHaveProperty('transportId');
  });

  it('carries data.authentication from the verdicts, unknown where nothing was checked', async () => {
    const { process, published } = worker();
    for (const report of await reportsFor('ses-c', { spam: 'PASS', virus: 'PASS', spf: 'FAIL', dkim: 'GRAY' }))
      await process(report);
    // A report queued before receipts were carried: identified by its stored object, nothing known of the sender.
    await process({ v: 1, source: 'email', projectId: 'prj_1', channelId: 'ch_mail', receivedAt: 0, bodyRef: 'k1' });
    await process({ v: 1, source: 'email', projectId: 'prj_1', channelId: 'ch_mail', receivedAt: 0, bodyRef: 'k1' });
    expect(published.map((e) => e.data.authentication)).toEqual([
      { spf: 'fail', dkim: 'none', dmarc: 'unknown' },
      { spf: 'unknown', dkim: 'unknown', dmarc: 'unknown' },
    ]);
  });
});
