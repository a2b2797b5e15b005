import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { SmtpEmailSender } from '#shared/messaging/adapters/smtp-sender.ts';
import type { Channel } from '#shared/messaging/channel.ts';
import { makeListUnsubscribe, mailboxOf } from '#shared/messaging/list-unsubscribe.ts';
import { ProviderError } from '#shared/messaging/providers.ts';
import { parseHeaders } from '../../e2e/send-doubles.ts';

/**
 * A channel's mail over SMTP carries each recipient's own `List-Unsubscribe` address: one copy per recipient (`to`
 * and `bcc`) over a few connections, the same Message-ID and visible headers in each, and a refused recipient does not
 * stop the others. The server is smtp-server, the client the service's own sender (nodemailer).
 */
interface Received {
  rcptTo: string[];
  headers: Record<string, string>;
  raw: string;
  connection: string;
}

const received: Received[] = [];
const refused = new Set<string>();
let server: SMTPServer;
let port: number;

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address))
        return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          headers: parseHeaders(raw),
          raw,
          connection: session.id,
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const box = createSecretBox(randomBytes(32).toString('base64'));
const unsubscribe = makeListUnsubscribe(box);
const channel = (): Channel => ({
  channelId: `ch_${randomBytes(4).toString('hex')}`,
  projectId: 'prj_1',
  companyId: 1,
  type: 'email',
  name: 'mail',
  address: 'Support@Shop.example.com',
  provider: { kind: 'smtp', host: '127.0.0.1', port: 0, allowPlaintext: true },
  createdAt: new Date().toISOString(),
});
const sender = () => new SmtpEmailSender({ timeoutMs: 5_000, allowPrivate: true, allowedPorts: 'any', unsubscribe });

async function send(ch: Channel, payload: { to: string[]; bcc?: string[] }) {
  ch.provider = { kind: 'smtp', host: '127.0.0.1', port, allowPlaintext: true };
  const before = received.length;
  const receipt = await sender().send({
    channel: ch,
    message: { type: 'email', payload: { subject: 'Pedido', body: 'Chegou.', ...payload } },
    deadline: Date.now() + 10_000,
  });
  return { receipt, mails: received.slice(before) };
}

/** The unsubscribe address inside a `List-Unsubscribe` header value. */
const mailtoOf = (header: string | undefined) => /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(header ?? '')?.[1];

describe('the SMTP sender', () => {
  it('sends each recipient a copy of its own with its own List-Unsubscribe address, under one Message-ID', async () => {
    const ch = channel();
    const { receipt, mails } = await send(ch, {
      to: ['ana@example.org', 'bruno@example.org', 'ANA@example.org'],
      bcc: ['audit@example.net'],
    });
    const byRecipient = (a: Received, b: Received) => (a.rcptTo[0]! < b.rcptTo[0]! ? -1 : 1);
    mails.sort(byRecipient);
    expect(mails.map((m) => m.rcptTo)).toEqual([['ana@example.org'], ['audit@example.net'], ['bruno@example.org']]);
    expect(new Set(mails.map((m) => m.headers['message-id'])).size).toBe(1);
    expect(receipt.providerMessageIds).toEqual([mails[0]!.headers['message-id']]);
    expect(mails[0]!.headers['message-id']).toMatch(/^<[0-9a-f-]{36}@Shop\.example\.com>$/);
    for (const mail of mails) {
      expect(mail.headers.to).toBe('ana@example.org, bruno@example.org, ANA@example.org');
      expect(mail.raw).not.toContain('audit@example.net');
    }
    const addresses = mails.map((m) => mailtoOf(m.headers['list-unsubscribe']));
    expect(new Set(addresses).size).toBe(3);
    for (const [i, recipient] of ['ana@example.org', 'audit@example.net', 'bruno@example.org'].entries()) {
      const address = addresses[i]!;
      expect(address).toMatch(/^Support\+unsub-[a-z2-7]{26}@Shop\.example\.com$/);
      expect(mailboxOf(address)).toBe('Support@Shop.example.com');
      expect(unsubscribe.isAddressOf(ch, address, recipient)).toBe(true);
      expect(unsubscribe.isAddressOf(ch, address.toUpperCase(), recipient.toUpperCase())).toBe(true);
      // Another recipient's address, and the same address on another channel, are not this recipient's.
      expect(unsubscribe.isAddressOf(ch, addresses[(i + 1) % 3]!, recipient)).toBe(false);
      expect(unsubscribe.isAddressOf(channel(), address, recipient)).toBe(false);
    }
  });

  it('100 recipients: 100 copies over at most 4 connections', async () => {
    const to = Array.from({ length: 50 }, (_, i) => `to${i}@example.org`);
    const bcc = Array.from({ length: 50 }, (_, i) => `bcc${i}@example.org`);
    const { mails } = await send(channel(), { to, bcc });
    expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual([...to, ...bcc].sort());
    expect(new Set(mails.map((m) => m.connection)).size).toBeLessThanOrEqual(4);
    expect(new Set(mails.map((m) => m.headers['list-unsubscribe'])).size).toBe(100);
  });

  it('composes a copy on its own when its header cannot take the first copy’s place (another length)', async () => {
    const ch = channel();
    ch.provider = { kind: 'smtp', host: '127.0.0.1', port, allowPlaintext: true };
    const before = received.length;
    const byName = new SmtpEmailSender({
      timeoutMs: 5_000,
      allowPrivate: true,
      allowedPorts: 'any',
      unsubscribe: { headers: (_c, recipient) => ({ 'List-Unsubscribe': `<mailto:leave-${recipient}>` }) },
    });
    await byName.send({
      channel: ch,
      message: {
        type: 'email',
        payload: { to: ['a@example.org', 'longer.name@example.org'], subject: 'S', body: 'B' },
      },
      deadline: Date.now() + 10_000,
    });
    const mails = received.slice(before);
    for (const mail of mails) expect(mail.headers['list-unsubscribe']).toBe(`<mailto:leave-${mail.rcptTo[0]}>`);
    expect(mails).toHaveLength(2);
  });

  it('a refused recipient does not stop the others; the send fails only when every copy was refused', async () => {
    const ch = channel();
    refused.add('gone@example.org');
    const partly = await send(ch, { to: ['gone@example.org', 'ok@example.org'] });
    expect(partly.mails.map((m) => m.rcptTo)).toEqual([['ok@example.org']]);
    expect(partly.receipt.providerMessageIds).toHaveLength(1);
    const error = await send(ch, { to: ['gone@example.org'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/refused the message: 550/);
    expect((error as ProviderError).sentProviderMessageIds).toEqual([]);
  });
});
