import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import type { DeliveryStatusReport } from '#shared/messaging/inbound/dsn.ts';
import { makeProcessInbound } from '#shared/messaging/inbound/process-inbound.ts';
import type { InboundReport, MailAuthentication, ReceivedMessage } from '#shared/messaging/inbound/report.ts';
import { makeListUnsubscribe } from '#shared/messaging/list-unsubscribe.ts';
import type { MessageStatusRecord } from '#shared/messaging/message-status.ts';
import { MemoryConversations } from '#test/support/fakes/memory-conversations.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';

/**
 * What a received message may change in a channel's suppressions: only what its sender cannot forge. Mail through
 * the worker as SES delivers it (a receipt, the parsed mail), SMS/WhatsApp keywords as their providers post them.
 */
const mailChannel = {
  channelId: 'ch_mail',
  projectId: 'prj_1',
  companyId: 1,
  type: 'email',
  address: 'support@shop.example.com',
  provider: { kind: 'smtp' },
} as unknown as Channel;
const whatsAppChannel = {
  channelId: 'ch_wa',
  projectId: 'prj_1',
  companyId: 1,
  type: 'whatsapp',
  address: '5511900000000',
  provider: { kind: 'whatsapp-cloud', phoneNumberId: 'PN1', accessToken: 't' },
} as unknown as Channel;

const unsubscribe = makeListUnsubscribe(createSecretBox(randomBytes(32).toString('base64')));
/** The unsubscribe address the channel's mail to `recipient` carries. */
const unsubscribeAddress = (channel: Channel, recipient: string) =>
  /<mailto:([^?>]+)\?/.exec(unsubscribe.headers(channel, recipient)['List-Unsubscribe']!)![1]!;

interface Mail {
  from: string;
  subject?: string;
  messageId?: string;
  envelopeTo?: string[];
  authentication?: Partial<MailAuthentication>;
  signedBy?: string[];
  deliveryStatus?: DeliveryStatusReport;
}

function worker() {
  const conversations = new MemoryConversations();
  const events = new RecordingPublisher();
  const records = new Set<string>();
  const parsed = new Map<string, Mail>();
  const raw = new Map<string, string>();
  const { process } = makeProcessInbound({
    channels: { findById: async (id) => [mailChannel, whatsAppChannel].find((c) => c.channelId === id) },
    statuses: {
      findByProviderId: async () => undefined,
      advance: async () => undefined,
      recordInbound: async (record: MessageStatusRecord) => {
        if (records.has(record.messageId)) return false;
        records.add(record.messageId);
        return true;
      },
      pendingEvents: async () => [],
      clearEvent: async () => {},
    },
    conversations,
    unsubscribe,
    events,
    rawReports: { get: async (key) => (raw.has(key) ? Buffer.from(raw.get(key)!) : Buffer.from(key)) },
    parseMail: async (bytes, to): Promise<ReceivedMessage> => {
      const mail = parsed.get(bytes.toString())!;
      return {
        kind: 'message',
        provider: 'smtp',
        providerMessageId: mail.messageId ?? `<${randomBytes(6).toString('hex')}@elsewhere.example.org>`,
        from: mail.from,
        to,
        text: '',
        receivedAt: '2026-03-01T10:00:00.000Z',
        email: {
          subject: mail.subject ?? 'hello',
          attachments: [],
          ...(mail.signedBy ? { signedBy: mail.signedBy } : {}),
          ...(mail.deliveryStatus ? { deliveryStatus: mail.deliveryStatus } : {}),
        },
      };
    },
    log: { info: () => {}, warn: () => {} },
  });
  let seq = 0;

  /** A mail delivered by SES (or the local listener) to the channel, with SES's verdicts. */
  async function mail(m: Mail) {
    const key = `payloads/inbound/email/ses/m${seq++}`;
    parsed.set(key, m);
    const verdict = (v: string | undefined) => ({ pass: 'PASS', fail: 'FAIL', none: 'GRAY' })[v ?? ''] ?? 'DISABLED';
    const report: InboundReport = {
      v: 1,
      source: 'email',
      projectId: mailChannel.projectId,
      channelId: mailChannel.channelId,
      receivedAt: Date.now(),
      bodyRef: key,
      ses: {
        messageId: `ses-${seq}`,
        authentication: {
          spf: 'unknown',
          dkim: verdict(m.authentication?.dkim) === 'PASS' ? 'pass' : 'unknown',
          dmarc: verdict(m.authentication?.dmarc) === 'PASS' ? 'pass' : 'unknown',
        },
      },
      recipients: m.envelopeTo ?? [mailChannel.address],
    };
    return process(report);
  }

  /** One WhatsApp webhook post with these messages (Meta's shape), accepted at `acceptedAt`. */
  async function whatsApp(
    messages: { id: string; from: string; text: string; timestamp: number }[],
    acceptedAt: number,
  ) {
    const key = `payloads/inbound/whatsapp-cloud/w${seq++}`;
    const value = {
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: 'PN1' },
      messages: messages.map((m) => ({ ...m, timestamp: String(m.timestamp), type: 'text', text: { body: m.text } })),
    };
    raw.set(
      key,
      JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value }] }] }),
    );
    return process({
      v: 1,
      source: 'whatsapp-cloud',
      projectId: whatsAppChannel.projectId,
      channelId: whatsAppChannel.channelId,
      receivedAt: acceptedAt,
      bodyRef: key,
    });
  }

  const suppressed = async (channel: Channel) =>
    (await conversations.listSuppressions(channel.projectId, channel.channelId, { limit: 100 })).items;
  return { mail, whatsApp, conversations, events: events.envelopes, suppressed };
}

const types = (events: { type: string }[]) => events.map((e) => e.type);

describe('a mailed unsubscribe', () => {
  it('with a spoofed From and subject "unsubscribe" to the channel’s address is an ordinary message.received', async () => {
    const w = worker();
    await w.mail({ from: 'victim@customer.example.org', subject: 'unsubscribe' });
    await w.mail({ from: 'victim@customer.example.org', subject: 'UNSUBSCRIBE ', authentication: { dkim: 'fail' } });
    expect(types(w.events)).toEqual(['message.received', 'message.received']);
    expect(await w.suppressed(mailChannel)).toEqual([]);
  });

  it('counts when sent to the sender’s own List-Unsubscribe address (whatever the subject), not to another’s', async () => {
    const w = worker();
    const own = unsubscribeAddress(mailChannel, 'ana@customer.example.org');
    // Someone who knows Ana's address writes from Bruno: not Bruno's address, not believed.
    await w.mail({ from: 'bruno@customer.example.org', subject: 'unsubscribe', envelopeTo: [own] });
    // Another channel's address for Ana at the same mailbox means nothing here.
    const otherChannel = { ...mailChannel, channelId: 'ch_other' };
    await w.mail({
      from: 'ana@customer.example.org',
      envelopeTo: [unsubscribeAddress(otherChannel, 'ana@customer.example.org')],
    });
    expect(await w.suppressed(mailChannel)).toEqual([]);
    await w.mail({ from: 'Ana@Customer.example.org', subject: 'please stop', envelopeTo: [own.toUpperCase()] });
    expect(types(w.events)).toEqual(['message.received', 'message.received', 'message.received', 'contact.opted_out']);
    expect(w.events.at(-1)!.data).toMatchObject({
      contact: 'ana@customer.example.org',
      reason: 'keyword',
      keyword: 'unsubscribe',
    });
    expect(w.events.every((e) => !('envelopeTo' in (e.data as object)) && !('signedBy' in (e.data as object)))).toBe(
      true,
    );
  });

  it('counts when the receiving side verified the sender: DMARC pass, or DKIM pass with every signature aligned with From', async () => {
    const cases: [Mail, boolean][] = [
      [{ from: 'a@customer.example.org', authentication: { dmarc: 'pass' } }, true],
      [{ from: 'b@customer.example.org', authentication: { dkim: 'pass' }, signedBy: ['customer.example.org'] }, true],
      [
        { from: 'c@mail.customer.example.org', authentication: { dkim: 'pass' }, signedBy: ['customer.example.org'] },
        true,
      ],
      [{ from: 'd@customer.example.org', authentication: { dkim: 'pass' }, signedBy: ['attacker.example.net'] }, false],
      [
        {
          from: 'e@customer.example.org',
          authentication: { dkim: 'pass' },
          signedBy: ['customer.example.org', 'x.net'],
        },
        false,
      ],
      [{ from: 'f@customer.example.org', authentication: { dkim: 'pass' }, signedBy: [] }, false],
      [
        { from: 'g@customer.example.org', authentication: { dkim: 'pass' }, signedBy: ['sub.customer.example.org'] },
        false,
      ],
      [{ from: 'h@customer.example.org', authentication: { dkim: 'fail' }, signedBy: ['customer.example.org'] }, false],
    ];
    for (const [m, believed] of cases) {
      const w = worker();
      await w.mail({ ...m, subject: 'Unsubscribe' });
      expect(
        (await w.suppressed(mailChannel)).map((s) => s.contact),
        m.from,
      ).toEqual(believed ? [m.from] : []);
    }
  });
});

describe('a delivery status notification', () => {
  const dsn = (originalMessageId: string, ...recipients: (string | [final: string, original: string])[]) => ({
    originalMessageId,
    hardBounces: recipients.map((r) =>
      Array.isArray(r)
        ? { recipient: r[0], originalRecipient: r[1], status: '5.1.1' }
        : { recipient: r, status: '5.1.1' },
    ),
  });

  it('naming a Message-ID the channel only received suppresses nobody', async () => {
    const w = worker();
    // A mail plants a Message-ID (the channel remembers it for threading), then a report names it.
    await w.mail({ from: 'attacker@evil.example.net', messageId: '<planted@evil.example.net>' });
    expect(await w.conversations.threads(mailChannel.channelId, ['<planted@evil.example.net>'])).toHaveProperty(
      'size',
      1,
    );
    await w.mail({
      from: 'MAILER-DAEMON@evil.example.net',
      deliveryStatus: dsn(
        '<planted@evil.example.net>',
        'a@victim.example.org',
        'b@victim.example.org',
        'c@victim.example.org',
      ),
    });
    expect(types(w.events)).toEqual(['message.received', 'message.received']);
    expect(await w.suppressed(mailChannel)).toEqual([]);
  });

  it('about a mail the channel sent suppresses only the recipients of that mail', async () => {
    const w = worker();
    w.conversations.sentMails.set(`${mailChannel.channelId}/<sent-1@shop.example.com>`, [
      'gone@customer.example.org',
      'moved@customer.example.org',
    ]);
    await w.mail({
      from: 'MAILER-DAEMON@mx.customer.example.org',
      deliveryStatus: dsn(
        '<sent-1@shop.example.com>',
        'gone@customer.example.org',
        'never-mailed@customer.example.org',
        // Forwarded, bounced at its final address: the address the channel wrote is the one suppressed.
        ['new-home@elsewhere.example.net', 'moved@customer.example.org'],
      ),
    });
    expect((await w.suppressed(mailChannel)).map((s) => [s.contact, s.reason])).toEqual([
      ['gone@customer.example.org', 'bounce'],
      ['moved@customer.example.org', 'bounce'],
    ]);
  });
});

describe('an opt-out and an opt-in of one contact', () => {
  const at = 1_767_000_000;
  let n = 0;
  const wa = (from: string, text: string, timestamp: number) => ({ id: `wamid.T${n++}`, from, text, timestamp });

  it('at the same provider time: the opt-out wins, whichever arrives first', async () => {
    const w = worker();
    // Several contacts: before, the tie went by a hash of the message ids, so about half lost their STOP.
    for (let i = 0; i < 8; i++) {
      const contact = `55119000000${10 + i}`;
      await w.whatsApp([wa(contact, 'STOP', at)], 1_000 + i * 10);
      await w.whatsApp([wa(contact, 'START', at)], 1_001 + i * 10);
      const other = `55119000001${10 + i}`;
      await w.whatsApp([wa(other, 'START', at)], 1_002 + i * 10);
      await w.whatsApp([wa(other, 'STOP', at)], 1_003 + i * 10);
    }
    expect(await w.suppressed(whatsAppChannel)).toHaveLength(16);
  });

  it('otherwise the later provider time wins, then the order they arrived in (within one webhook too)', async () => {
    const w = worker();
    // A STOP sent after the START (later provider time) but delivered first: the STOP stands.
    await w.whatsApp([wa('5511900000201', 'STOP', at + 1)], 2_000);
    await w.whatsApp([wa('5511900000201', 'START', at)], 2_001);
    // A START sent after the STOP, delivered late: the START stands.
    await w.whatsApp([wa('5511900000202', 'START', at + 1)], 2_002);
    await w.whatsApp([wa('5511900000202', 'STOP', at)], 2_003);
    // Two opt-outs at the same time: one suppression, with the first one's keyword.
    await w.whatsApp([wa('5511900000203', 'SAIR', at), wa('5511900000203', 'STOP', at)], 2_004);
    // STOP, START, STOP at three times in one webhook: suppressed.
    await w.whatsApp(
      [wa('5511900000204', 'STOP', at), wa('5511900000204', 'START', at + 1), wa('5511900000204', 'STOP', at + 2)],
      2_005,
    );
    const suppressed = await w.suppressed(whatsAppChannel);
    expect(suppressed.map((s) => [s.contact, s.keyword])).toEqual([
      ['5511900000201', 'STOP'],
      ['5511900000203', 'SAIR'],
      ['5511900000204', 'STOP'],
    ]);
  });
});
