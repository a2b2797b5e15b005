import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';
import { type RunningSmtpInbound, type SesReceiptNotification, startSmtpInbound } from '#local/smtp-inbound.ts';
import { RawSmtp } from '#test/support/smtp-client.ts';

/**
 * The local SMTP listener's limits, spoken to as a mail client would: at most 100 RCPT commands per message (452
 * from the 101st, counted afresh for each message of a session), 25 MB per message (552), a bounded number of connections (421 beyond) and no idle
 * connection kept forever.
 */
const parked = new Map<string, Buffer>();
const queued: SesReceiptNotification[] = [];
let smtp: RunningSmtpInbound;

beforeAll(async () => {
  smtp = await startSmtpInbound({
    port: 0,
    host: '127.0.0.1',
    findChannels: async (address) =>
      address.endsWith('@inbound.example.com') && !address.startsWith('nobody')
        ? [{ projectId: 'prj_1', channelId: `ch_${address.split('@')[0]}` }]
        : [],
    park: async (key, raw) => {
      parked.set(key, raw);
    },
    enqueue: async (notification) => {
      queued.push(notification);
    },
  });
});
afterAll(() => smtp?.stop());

async function session(): Promise<RawSmtp> {
  const client = await RawSmtp.open(smtp.port);
  expect((await client.reply()).code).toBe(220);
  expect((await client.send('EHLO client.example.org')).code).toBe(250);
  expect((await client.send('MAIL FROM:<sender@example.org>')).code).toBe(250);
  return client;
}

describe('the local SMTP listener', () => {
  it('takes 100 recipients per message and answers 452 to the 101st; the mail goes to the 100', async () => {
    const client = await session();
    for (let i = 0; i < 100; i++) expect((await client.send(`RCPT TO:<r${i}@inbound.example.com>`)).code).toBe(250);
    const refused = await client.send('RCPT TO:<r100@inbound.example.com>');
    expect(refused.code).toBe(452);
    expect(refused.text).toMatch(/Too many recipients/);
    expect((await client.send('RCPT TO:<r101@inbound.example.com>')).code).toBe(452);
    expect((await client.send('DATA')).code).toBe(354);
    const accepted = await client.send('Subject: many\r\n\r\nhello\r\n.');
    expect(accepted.code).toBe(250);
    expect(queued.at(-1)!.receipt.recipients).toHaveLength(100);
    expect(queued.at(-1)!.receipt.recipients).not.toContain('r100@inbound.example.com');
    client.close();
  });

  it('counts every RCPT of a message: the 101st answers 452, whether earlier ones repeated an address or were refused', async () => {
    const client = await session();
    for (let i = 0; i < 5; i++) expect((await client.send(`RCPT TO:<nobody${i}@inbound.example.com>`)).code).toBe(550);
    for (let i = 0; i < 95; i++) expect((await client.send('RCPT TO:<same@inbound.example.com>')).code).toBe(250);
    expect((await client.send('RCPT TO:<same@inbound.example.com>')).code).toBe(452);
    expect((await client.send('RCPT TO:<other@inbound.example.com>')).code).toBe(452);
    client.close();
  });

  it('counts per message in one session: a second message starts from zero and names only its own recipients', async () => {
    const client = await session();
    for (let i = 0; i < 100; i++) expect((await client.send(`RCPT TO:<first${i}@inbound.example.com>`)).code).toBe(250);
    expect((await client.send('RCPT TO:<first100@inbound.example.com>')).code).toBe(452);
    expect((await client.send('DATA')).code).toBe(354);
    expect((await client.send('Subject: one\r\n\r\nhello\r\n.')).code).toBe(250);
    expect(queued.at(-1)!.receipt.recipients).toHaveLength(100);

    expect((await client.send('MAIL FROM:<sender@example.org>')).code).toBe(250);
    for (let i = 0; i < 100; i++) expect((await client.send('RCPT TO:<second@inbound.example.com>')).code).toBe(250);
    expect((await client.send('RCPT TO:<second@inbound.example.com>')).code).toBe(452);
    expect((await client.send('DATA')).code).toBe(354);
    expect((await client.send('Subject: two\r\n\r\nhello\r\n.')).code).toBe(250);
    expect(queued.at(-1)!.receipt.recipients).toEqual(['second@inbound.example.com']);

    // RSET ends a message too.
    expect((await client.send('MAIL FROM:<sender@example.org>')).code).toBe(250);
    for (let i = 0; i < 100; i++) expect((await client.send('RCPT TO:<third@inbound.example.com>')).code).toBe(250);
    expect((await client.send('RSET')).code).toBe(250);
    expect((await client.send('MAIL FROM:<sender@example.org>')).code).toBe(250);
    expect((await client.send('RCPT TO:<fourth@inbound.example.com>')).code).toBe(250);
    client.close();
  });

  it('refuses a message over 25 MB with 552 and stores nothing; a smaller one is stored with SES’s shape', async () => {
    const before = parked.size;
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
    });
    const error = await transport
      .sendMail({
        from: 'a@example.org',
        to: 'support@inbound.example.com',
        subject: 'big',
        text: 'x',
        attachments: [{ filename: 'big.bin', content: Buffer.alloc(19 * 1024 * 1024, 7) }], // base64: ~26 MB
      })
      .catch((e: unknown) => e as { responseCode?: number });
    expect((error as { responseCode?: number }).responseCode).toBe(552);
    expect(parked.size).toBe(before);

    const sent = await transport.sendMail({
      from: 'a@example.org',
      to: 'support@inbound.example.com',
      subject: 'small',
      text: 'x',
    });
    expect(sent.accepted).toEqual(['support@inbound.example.com']);
    const notification = queued.at(-1)!;
    expect(notification.receipt.action.objectKey).toBe(`${SES_OBJECT_PREFIX}${notification.mail.messageId}`);
    expect(parked.has(notification.receipt.action.objectKey)).toBe(true);
    transport.close();
  }, 60_000);

  it('answers 421 to connections beyond 100 at once, and takes new ones once others left', async () => {
    const open: RawSmtp[] = [];
    try {
      // All at once: each banner comes after smtp-server's 100 ms early-talker pause.
      open.push(...(await Promise.all(Array.from({ length: 100 }, () => RawSmtp.open(smtp.port)))));
      for (const client of open) expect((await client.reply()).code).toBe(220);
      const extra = await RawSmtp.open(smtp.port);
      expect((await extra.reply()).code).toBe(421);
      await extra.closedAt;
      open.pop()!.close();
      await new Promise((r) => setTimeout(r, 100));
      const again = await RawSmtp.open(smtp.port);
      expect((await again.reply()).code).toBe(220);
      again.close();
    } finally {
      for (const client of open) client.close();
    }
  });

  it('closes a connection that stays idle past its timeout', async () => {
    const idle = await startSmtpInbound({
      port: 0,
      host: '127.0.0.1',
      findChannels: async () => [],
      park: async () => {},
      enqueue: async () => {},
      idleTimeoutMs: 1_000,
    });
    const client = await RawSmtp.open(idle.port);
    const opened = Date.now();
    expect((await client.reply()).code).toBe(220);
    expect((await client.send('EHLO idle.example.org')).code).toBe(250);
    const closedAt = await Promise.race([client.closedAt, new Promise<number>((r) => setTimeout(() => r(-1), 5_000))]);
    expect(closedAt).toBeGreaterThan(0);
    expect(closedAt - opened).toBeLessThan(3_000);
    client.close();
    await idle.stop();
  });
});
