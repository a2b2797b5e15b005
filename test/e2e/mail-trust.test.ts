import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistently, eventually } from '#test/support/eventually.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { RawSmtp } from '#test/support/smtp-client.ts';
import { startSmtpDouble } from './send-doubles.ts';
import { dsnMail, postMetaWebhook, projectWithWebhook } from './channel-support.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Only believable mail changes a suppression, seen from outside: mail through the service's SMTP listener (nodemailer
 * as the sender), the channel's own mail caught by an SMTP server (smtp-server), events at a real webhook receiver.
 * The reproductions: a spoofed `From` with the subject `unsubscribe`; a planted Message-ID then a delivery status
 * report naming it with three recipients; a report about a real mail naming addresses it never went to; and the
 * opt-out tie and the listener's recipient cap.
 */
let svc: ServiceClient;
let receiver: TestReceiver;
let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;

beforeAll(async () => {
  [svc, receiver, smtp] = await Promise.all([sharedService(), startReceiver(), startSmtpDouble()]);
});
afterAll(async () => {
  await Promise.all([receiver?.close(), smtp?.close()]);
});

const APP_SECRET = 'meta-app-secret-mail-trust';

const project = () => projectWithWebhook(svc, receiver);

let seq = 0;
async function mailChannel(p: Awaited<ReturnType<typeof project>>) {
  return p.channel({
    type: 'email',
    address: `trust-${Date.now()}-${seq++}@inbound.example.com`,
    provider: { kind: 'smtp', host: '127.0.0.1', port: smtp.port, allowPlaintext: true },
  });
}

async function send(token: string, body: unknown) {
  const res = await svc.send(token, body);
  return { status: res.status, body: (await res.json()) as any };
}

const mailer = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port: svc.smtpPort, secure: false, ignoreTLS: true });

/** The copy of the channel's mail that went to `recipient`. */
const copyTo = (recipient: string, channelAddress: string) =>
  eventually(
    async () => smtp.mails.find((m) => m.rcptTo.includes(recipient) && m.headers.from?.includes(channelAddress)),
    5_000,
  );

const suppressions = async (p: { projectId: string }, ch: { channelId: string }) =>
  (await svc.admin('GET', `/projects/${p.projectId}/channels/${ch.channelId}/suppressions`)).body.items.map(
    (s: any) => [s.contact, s.reason],
  );

describe('mail that would change a suppression', () => {
  it('a spoofed From with the subject "unsubscribe" is an ordinary message.received: nobody is suppressed', async () => {
    const p = await project();
    const ch = await mailChannel(p);
    await mailer().sendMail({ from: 'victim@customer.example.org', to: ch.address, subject: 'unsubscribe', text: '' });
    const [received] = await p.waitFor((e) => e.type === 'message.received');
    expect(received.data).toMatchObject({ from: 'victim@customer.example.org', subject: 'unsubscribe' });
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toEqual([]), 500);
    expect(await suppressions(p, ch)).toEqual([]);
    expect((await send(ch.token, { to: 'victim@customer.example.org', subject: 'Oi', body: 'x' })).status).toBe(200);
  });

  it('a planted Message-ID, then a DSN naming it with three recipients: nobody is suppressed, sends to them go out', async () => {
    const p = await project();
    const ch = await mailChannel(p);
    const planted = `<planted-${randomBytes(4).toString('hex')}@evil.example.net>`;
    await mailer().sendMail({
      from: 'attacker@evil.example.net',
      to: ch.address,
      subject: 'hello',
      text: 'a mail whose Message-ID the channel now knows',
      messageId: planted,
    });
    await p.waitFor((e) => e.type === 'message.received');
    const victims = ['a@victim.example.org', 'b@victim.example.org', 'c@victim.example.org'];
    await mailer().sendMail({ envelope: { from: '', to: [ch.address] }, raw: dsnMail(ch.address, planted, victims) });
    await p.waitFor((e) => e.type === 'message.received', 2);
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toEqual([]), 500);
    expect(await suppressions(p, ch)).toEqual([]);
    const sent = await send(ch.token, { to: victims, subject: 'Pedido', body: 'x' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  });

  it('a DSN about a mail the channel sent suppresses its recipients, never addresses it did not go to', async () => {
    const p = await project();
    const ch = await mailChannel(p);
    const sent = await send(ch.token, {
      to: 'gone@customer.example.org',
      bcc: 'audit@customer.example.org',
      subject: 'Pedido',
      body: 'x',
    });
    expect(sent.status).toBe(200);
    const messageId = (await copyTo('gone@customer.example.org', ch.address)).headers['message-id']!;
    await mailer().sendMail({
      envelope: { from: '', to: [ch.address] },
      raw: dsnMail(ch.address, messageId, [
        'gone@customer.example.org',
        'bystander@customer.example.org',
        'audit@customer.example.org',
      ]),
    });
    await p.waitFor((e) => e.type === 'contact.opted_out', 2);
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toHaveLength(2), 500);
    expect(await suppressions(p, ch)).toEqual([
      ['audit@customer.example.org', 'bounce'],
      ['gone@customer.example.org', 'bounce'],
    ]);
    expect((await send(ch.token, { to: 'bystander@customer.example.org', subject: 'ok', body: 'x' })).status).toBe(200);
    expect((await send(ch.token, { to: 'gone@customer.example.org', subject: 'again', body: 'x' })).status).toBe(409);
  });

  it('an unsubscribe sent to the recipient’s own List-Unsubscribe address counts; that address from anyone else does not', async () => {
    const p = await project();
    const ch = await mailChannel(p);
    expect(
      (
        await send(ch.token, {
          to: ['ana@customer.example.org', 'bia@customer.example.org'],
          subject: 'News',
          body: 'x',
        })
      ).status,
    ).toBe(200);
    const [ana, bia] = await Promise.all([
      copyTo('ana@customer.example.org', ch.address),
      copyTo('bia@customer.example.org', ch.address),
    ]);
    const addressIn = (header: string | undefined) => /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(header ?? '')![1]!;
    const anaAddress = addressIn(ana.headers['list-unsubscribe']);
    expect(anaAddress).not.toBe(addressIn(bia.headers['list-unsubscribe']));
    expect(ana.headers['list-unsubscribe-post']).toBeUndefined();
    // Bia read Ana's header (say, a forwarded copy) and writes to it as Ana's sender would not: not believed.
    await mailer().sendMail({ from: 'bia@customer.example.org', to: anaAddress, subject: 'unsubscribe', text: '' });
    await p.waitFor((e) => e.type === 'message.received');
    await consistently(() => expect(p.events((e) => e.type === 'contact.opted_out')).toEqual([]), 300);
    // Ana's mail client follows her own mailto: suppressed.
    await mailer().sendMail({
      from: 'Ana <ana@customer.example.org>',
      to: anaAddress,
      subject: 'unsubscribe',
      text: '',
    });
    const [optedOut] = await p.waitFor((e) => e.type === 'contact.opted_out');
    expect(optedOut.data).toMatchObject({
      contact: 'ana@customer.example.org',
      reason: 'keyword',
      keyword: 'unsubscribe',
    });
    const refused = await send(ch.token, {
      to: ['bia@customer.example.org', 'ana@customer.example.org'],
      subject: 'x',
      body: 'x',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.details.map((d: any) => d.path)).toEqual(['to.1']);
    // Another project's channel at the same mailbox does not take Ana's address as its own.
    const other = await project();
    const twin = await other.channel({ type: 'email', address: ch.address });
    await mailer().sendMail({ from: 'ana@customer.example.org', to: anaAddress, subject: 'unsubscribe', text: '' });
    await other.waitFor((e) => e.type === 'message.received');
    await consistently(() => expect(other.events((e) => e.type === 'contact.opted_out')).toEqual([]), 300);
    expect(await suppressions(other, twin)).toEqual([]);
  });
});

describe('an opt-out and an opt-in at the same provider time', () => {
  const postMeta = (channelId: string, phoneNumberId: string, messages: unknown[]) =>
    postMetaWebhook(svc.baseUrl, { channelId, phoneNumberId, appSecret: APP_SECRET }, { messages });

  it('the opt-out wins whichever is delivered first; otherwise the later provider time wins', async () => {
    const p = await project();
    const phoneNumberId = `39${Date.now()}`;
    const ch = await p.channel({
      type: 'whatsapp',
      address: '+15551239000',
      provider: {
        kind: 'whatsapp-cloud',
        phoneNumberId,
        accessToken: 't',
        appSecret: APP_SECRET,
        baseUrl: 'http://127.0.0.1:9',
      },
    });
    const second = Math.floor(Date.now() / 1000);
    const text = (from: string, body: string, timestamp: number) => ({
      from,
      id: `wamid.${randomBytes(8).toString('hex')}`,
      timestamp: String(timestamp),
      type: 'text',
      text: { body },
    });
    const contacts = Array.from({ length: 6 }, (_, i) => `55119888800${10 + i}`);
    // A STOP then a START in the same second, for several contacts (before, about half of them lost their STOP).
    for (const contact of contacts) {
      await postMeta(ch.channelId, phoneNumberId, [text(contact, 'STOP', second)]);
      await postMeta(ch.channelId, phoneNumberId, [text(contact, 'START', second)]);
    }
    // A START a second after a STOP, the STOP delivered last: opted in.
    await postMeta(ch.channelId, phoneNumberId, [text('5511988880099', 'START', second + 1)]);
    await postMeta(ch.channelId, phoneNumberId, [text('5511988880099', 'STOP', second)]);
    await p.waitFor((e) => e.type === 'message.received', contacts.length * 2 + 2);
    await p.waitFor((e) => e.type === 'contact.opted_out', contacts.length);
    await consistently(async () => {
      expect((await suppressions(p, ch)).map(([c]: [string]) => c)).toEqual(contacts);
    }, 500);
  });
});

describe('the SMTP listener', () => {
  it('answers 452 from the 101st RCPT of a message, repeated addresses included, in each message of a session', async () => {
    const p = await project();
    const ch = await p.channel({ type: 'email', address: `cap-${Date.now()}@inbound.example.com` });
    const client = await RawSmtp.open(svc.smtpPort);
    try {
      expect((await client.reply()).code).toBe(220);
      expect((await client.send('EHLO client.example.org')).code).toBe(250);
      for (const subject of ['one', 'two']) {
        expect((await client.send('MAIL FROM:<sender@example.org>')).code).toBe(250);
        for (let i = 0; i < 100; i++) expect((await client.send(`RCPT TO:<${ch.address}>`)).code).toBe(250);
        expect((await client.send(`RCPT TO:<${ch.address}>`)).code).toBe(452);
        expect((await client.send('DATA')).code).toBe(354);
        expect((await client.send(`From: sender@example.org\r\nSubject: ${subject}\r\n\r\nhello\r\n.`)).code).toBe(250);
      }
    } finally {
      client.close();
    }
    // Each message once, to the one channel it named.
    const received = await p.waitFor((e) => e.type === 'message.received', 2);
    expect(received.map((e) => e.data.subject).sort()).toEqual(['one', 'two']);
    await consistently(() => expect(p.events((e) => e.type === 'message.received')).toHaveLength(2), 300);
  });
});
