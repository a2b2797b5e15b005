import { loadNodemailer } from '#shared/kernel/adapters/load-nodemailer.ts';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpServerFromUrl } from '#shared/kernel/adapters/smtp-transport.ts';
import { SmtpNoticeMailer } from '#shared/webhooks/adapters/smtp-notice-mailer.ts';

/**
 * The notice mailer against a real SMTP server (smtp-server) that offers no STARTTLS and asks for a login: with an
 * `smtp://` URL the credentials never leave unless the URL allows plaintext.
 */
const logins: { username: string; password: string }[] = [];
const mails: { rcptTo: string[]; raw: string }[] = [];
let server: SMTPServer;
let port: number;

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const email = (to: string) => ({ to, subject: 'Webhook int_1 is failing', text: 'It failed.', messageId: `<${to}>` });

describe('SmtpNoticeMailer', () => {
  it('refuses to send over smtp:// to a server without STARTTLS: no credential, no mail leaves', async () => {
    const mailer = new SmtpNoticeMailer(`smtp://notices:s3cret@127.0.0.1:${port}`, 'notices@example.com', {
      load: loadNodemailer,
      timeoutMs: 5_000,
    });
    await expect(mailer.send(email('ops@acme.example'))).rejects.toMatchObject({ code: 'ETLS' });
    expect(logins).toEqual([]);
    expect(mails).toEqual([]);
  });

  it('sends in clear, login included, only when the URL says allowPlaintext=true', async () => {
    const url = `smtp://notices:s%40cret%2F1@127.0.0.1:${port}?allowPlaintext=true`;
    await new SmtpNoticeMailer(url, 'notices@example.com', { load: loadNodemailer, timeoutMs: 5_000 }).send(
      email('ops2@acme.example'),
    );
    expect(logins).toEqual([{ username: 'notices', password: 's@cret/1' }]);
    expect(mails.map((m) => m.rcptTo)).toEqual([['ops2@acme.example']]);
    expect(mails[0]!.raw).toContain('Subject: Webhook int_1 is failing');
  });

  it('reads the server, the login and the TLS choice from the URL', () => {
    expect(smtpServerFromUrl('smtp://email-smtp.us-east-1.amazonaws.com')).toEqual({
      host: 'email-smtp.us-east-1.amazonaws.com',
      port: 587,
      secure: false,
      allowPlaintext: false,
    });
    expect(smtpServerFromUrl('smtps://AKIA%2Bx:p%3Aw@[::1]:2465?allowPlaintext=false')).toEqual({
      host: '::1',
      port: 2465,
      secure: true,
      allowPlaintext: false,
      user: 'AKIA+x',
      pass: 'p:w',
    });
    expect(() => smtpServerFromUrl('smtp://h?allowPlaintext=yes')).toThrow('allowPlaintext');
    expect(() => new SmtpNoticeMailer('http://h', 'a@b.c', { load: loadNodemailer })).toThrow('smtp://');
  });
});
