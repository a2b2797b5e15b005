import fc from 'fast-check';
import { type Channel, MAIL_LIMITS, makeSuppressionChanges, parseMail } from '#shared/messaging/index.ts';
import type { Fuzzer } from './fuzzer.ts';

/**
 * Delivery status notifications (RFC 3464) built to hurt and to lie: per-recipient groups by the hundred, folded and
 * repeated fields, recipients in every case and none, report types and boundaries that almost match, the returned
 * headers naming the channel's own mail, a planted Message-ID or none, around runs of boundary-like noise. Each is
 * parsed as the worker parses mail, then read as the worker reads a bounce. A finding: a parse over its budget, more
 * recipients than the ceiling, an address not lowercased, or a suppression of anyone the channel's mail did not go to.
 */
interface Group {
  final: string;
  original: string | null;
  action: string;
  status: string;
  fold: boolean;
}
interface DsnCase {
  boundary: string;
  reportType: string;
  groups: Group[];
  headersPart: 'text/rfc822-headers' | 'message/rfc822' | 'message/global-headers' | 'none';
  originalMessageId: string;
  noise: string;
  noiseAt: 'before' | 'inside' | 'after';
}

const CHANNEL = {
  channelId: 'ch_fuzz',
  projectId: 'prj_fuzz',
  companyId: 1,
  type: 'email',
  address: 'support@inbound.example.com',
  provider: { kind: 'smtp' },
} as unknown as Channel;
const SENT_ID = '<sent-1@inbound.example.com>';
const SENT_TO = ['ana@customer.example.org', 'bruno@customer.example.org'];

const runs = (pieces: string[], maxRun: number) =>
  fc
    .array(
      fc.tuple(fc.constantFrom(...pieces), fc.integer({ min: 1, max: maxRun })).map(([p, n]) => p.repeat(n)),
      { maxLength: 6 },
    )
    .map((parts) => parts.join(''));

const address = fc.oneof(
  fc.constantFrom(...SENT_TO, 'ANA@Customer.Example.org', 'victim@customer.example.org', 'support@inbound.example.com'),
  fc
    .constantFrom('rfc822; ', 'RFC822;', 'utf-8; ', 'x400; ', '')
    .chain((kind) =>
      fc
        .tuple(fc.string({ maxLength: 40 }), fc.constantFrom('@', '@@', '', ' @ '), fc.string({ maxLength: 40 }))
        .map(([local, at, domain]) => `${kind}${local}${at}${domain}`),
    ),
  fc.constantFrom(
    'rfc822; <ana@customer.example.org>',
    'rfc822;bruno@customer.example.org ',
    `rfc822; ${'a'.repeat(5000)}@x.org`,
  ),
);

const dsnCase: fc.Arbitrary<DsnCase> = fc.record({
  boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,69}$/),
  reportType: fc.constantFrom('delivery-status', 'DELIVERY-STATUS', 'global-delivery-status', 'delivery-statu', 'x'),
  groups: fc.array(
    fc.record({
      final: address,
      original: fc.option(address),
      action: fc.constantFrom('failed', 'FAILED ', 'delayed', 'delivered', ''),
      status: fc.constantFrom('5.1.1', '5.0.0 (bad)', '4.4.7', '5.999.999', 'x', '2.0.0'),
      fold: fc.boolean(),
    }),
    { maxLength: 160 },
  ),
  headersPart: fc.constantFrom('text/rfc822-headers', 'message/rfc822', 'message/global-headers', 'none'),
  originalMessageId: fc.oneof(
    fc.constant(SENT_ID),
    fc.constantFrom('<planted@evil.example.net>', `<${'x'.repeat(3000)}@y>`, 'no-brackets@x', '<a b@c>', ''),
  ),
  noise: runs(
    ['--', '\r\n', '\r\n\r\n', 'Final-Recipient: rfc822; victim@x.org\r\n', ':', ';', ' ', 'Action: failed\r\n'],
    8_000,
  ),
  noiseAt: fc.constantFrom('before' as const, 'inside' as const, 'after' as const),
});

function dsnBytes(c: DsnCase): Buffer {
  const group = (g: Group) =>
    [
      g.fold ? `Final-Recipient:\r\n  ${g.final}` : `Final-Recipient: ${g.final}`,
      ...(g.original === null ? [] : [`Original-Recipient: ${g.original}`]),
      `Action: ${g.action}`,
      g.fold ? `Status:\r\n\t${g.status}` : `Status: ${g.status}`,
    ].join('\r\n');
  const status = ['Reporting-MTA: dns; mx.example.org', ...c.groups.map(group)].join('\r\n\r\n');
  const headers =
    c.headersPart === 'none'
      ? ''
      : `--${c.boundary}\r\nContent-Type: ${c.headersPart}\r\n\r\nFrom: ${CHANNEL.address}\r\nMessage-ID: ${c.originalMessageId}\r\n\r\n`;
  const body =
    `${c.noiseAt === 'before' ? c.noise : ''}--${c.boundary}\r\nContent-Type: text/plain\r\n\r\nUndeliverable.\r\n` +
    `--${c.boundary}\r\nContent-Type: message/delivery-status\r\n\r\n${status}\r\n${c.noiseAt === 'inside' ? c.noise : ''}` +
    `${headers}--${c.boundary}--\r\n${c.noiseAt === 'after' ? c.noise : ''}`;
  return Buffer.from(
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n' +
      `To: ${CHANNEL.address}\r\nSubject: Undelivered Mail\r\nMIME-Version: 1.0\r\n` +
      `Content-Type: multipart/report; report-type=${c.reportType}; boundary="${c.boundary}"\r\n\r\n${body}`,
    'latin1',
  );
}

const suppressionChanges = makeSuppressionChanges({
  conversations: { sentMail: async (_channelId, messageId) => (messageId === SENT_ID ? SENT_TO : undefined) },
  unsubscribe: { isAddressOf: () => false },
  log: { info: () => {} },
});

export const dsnFuzzer: Fuzzer<DsnCase, Buffer> = {
  name: 'Delivery status reports',
  inputs: dsnCase,
  budget: { ms: 3_000, mb: 256 },
  describe: (c) =>
    `${dsnBytes(c).length.toLocaleString('en')} bytes, ${c.groups.length} recipient groups, report-type ${c.reportType}, ` +
    `headers ${c.headersPart} naming ${c.originalMessageId.slice(0, 40)}`,
  prepare: dsnBytes,
  async run(raw) {
    const message = await parseMail(raw, CHANNEL.address);
    const report = message.email?.deliveryStatus;
    if (report) {
      if (report.hardBounces.length > 100) throw new Error(`${report.hardBounces.length} recipients read`);
      for (const b of report.hardBounces)
        for (const a of [b.recipient, b.originalRecipient])
          if (a !== undefined && (a !== a.toLowerCase() || !/^[^\s@<>]+@[^\s@<>]+$/.test(a)))
            throw new Error(`a bounced address read as ${JSON.stringify(a.slice(0, 80))}`);
    }
    if (message.text.length > MAIL_LIMITS.textChars) throw new Error('the text passed its ceiling');
    const steps = await suppressionChanges(CHANNEL, message, message.from.toLowerCase());
    for (const step of steps) {
      if (!SENT_TO.includes(step.contact) || step.suppression?.reason !== 'bounce')
        throw new Error(
          `suppressed ${step.contact} (${step.suppression?.reason}): the channel's mail never went there`,
        );
      if (report?.originalMessageId !== SENT_ID) throw new Error('suppressed on a report about another mail');
    }
  },
};
