import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '#shared/kernel/adapters/guarded-lookup.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { SmtpEmailSender, type SmtpEmailSenderOptions } from '#shared/messaging/adapters/smtp-sender.ts';
import { makeListUnsubscribe } from '#shared/messaging/list-unsubscribe.ts';
import type { Channel, SmtpProvider } from '#shared/messaging/channel.ts';
import { ProviderError } from '#shared/messaging/providers.ts';
import { forbiddenAddressReason } from '#shared/kernel/destination-policy.ts';
import { startSmtpDouble } from '../../e2e/send-doubles.ts';

/** A loopback service that is not SMTP (a Redis-like cache): it greets with its own refusal, naming the host. */
async function startNonSmtpListener(banner: string) {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.write(banner);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const channel = (provider: Partial<SmtpProvider>): Channel => ({
  channelId: 'ch_1',
  projectId: 'prj_1',
  companyId: 1,
  type: 'email',
  name: 'mail',
  address: 'news@example.com',
  provider: { kind: 'smtp', host: '127.0.0.1', port: 25, ...provider },
  createdAt: new Date().toISOString(),
});
const email = { type: 'email' as const, payload: { to: ['ana@example.com'], subject: 'Hi', body: 'Hello' } };

async function sendThrough(options: Partial<SmtpEmailSenderOptions>, provider: Partial<SmtpProvider>) {
  const sender = new SmtpEmailSender({
    timeoutMs: 2_000,
    allowPrivate: false,
    allowedPorts: 'any',
    unsubscribe: makeListUnsubscribe(createSecretBox(randomBytes(32).toString('base64'))),
    ...options,
  });
  return sender.send({ channel: channel(provider), message: email, deadline: Date.now() + 5_000 });
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the send succeeded');
    },
    (error: unknown) => error as Error,
  );

let redis: Awaited<ReturnType<typeof startNonSmtpListener>>;
let refusingRedis: Awaited<ReturnType<typeof startNonSmtpListener>>;
let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;
beforeAll(async () => {
  [redis, refusingRedis, smtp] = await Promise.all([
    startNonSmtpListener('-NOAUTH internal-db-7.corp.local Redis 7.2 AUTH required\r\n'),
    startNonSmtpListener('554 internal-db-7.corp.local Redis 7.2 AUTH required\r\n'),
    startSmtpDouble(),
  ]);
});
afterAll(async () => Promise.all([redis?.close(), refusingRedis?.close(), smtp?.close()]));

describe('SMTP sends: the address policy at connect time', () => {
  it('never connects to loopback in any spelling, nor to a name that resolves to it', async () => {
    const ownName = hostname();
    // This machine's own name resolves to one of its addresses, which the policy refuses (loopback or private).
    expect(forbiddenAddressReason((await lookup(ownName)).address)).toBeDefined();
    const hosts = ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', '::ffff:7f00:1', '::127.0.0.1', 'localhost'];
    for (const host of [...hosts, ownName]) {
      const error = await failure(sendThrough({}, { host, port: refusingRedis.port }));
      expect(error, host).toBeInstanceOf(ProviderError);
      expect(error.message, host).toMatch(/^The SMTP host is refused: it resolves to a (loopback|private) address$/);
    }
    expect(refusingRedis.connections()).toBe(0);
  });

  it('judges a name on the address it resolves to when the send happens', async () => {
    const lookup = guardedLookup({
      allowPrivate: false,
      resolve: (_name, callback) => callback(null, [{ address: '169.254.169.254', family: 4 }]),
    });
    const error = await failure(sendThrough({ lookup }, { host: 'smtp.customer.example', port: 587 }));
    expect(error.message).toBe('The SMTP host is refused: it resolves to a metadata address');
  });

  it('refuses a port outside the allowed list without connecting', async () => {
    const error = await failure(
      sendThrough({ allowPrivate: true, allowedPorts: [25, 465, 587, 2525] }, { port: refusingRedis.port }),
    );
    expect(error.message).toBe(`SMTP port ${refusingRedis.port} is not allowed; use one of 25, 465, 587, 2525`);
    expect(refusingRedis.connections()).toBe(0);
  });

  it('never echoes what a listener that is not an SMTP server says, greeting or not', async () => {
    for (const listener of [redis, refusingRedis]) {
      const error = await failure(sendThrough({ allowPrivate: true }, { port: listener.port }));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe('The host did not answer as an SMTP server');
      expect(listener.connections()).toBeGreaterThan(0);
    }
  });
});

describe('SMTP sends: TLS', () => {
  it('refuses to send in clear to a server without STARTTLS unless the channel allows plaintext', async () => {
    const mails = smtp.mails.length;
    const error = await failure(
      sendThrough({ allowPrivate: true }, { port: smtp.port, user: 'mailer', pass: 'smtp-pass' }),
    );
    expect(error.message).toMatch(/does not offer STARTTLS/);
    expect(smtp.mails.length).toBe(mails);

    await sendThrough(
      { allowPrivate: true },
      { port: smtp.port, user: 'mailer', pass: 'smtp-pass', allowPlaintext: true },
    );
    expect(smtp.mails.at(-1)).toMatchObject({ rcptTo: ['ana@example.com'], auth: { username: 'mailer' } });
  });

  it('still quotes a real SMTP server refusal after its greeting', async () => {
    smtp.setRefuse(true);
    try {
      const error = await failure(sendThrough({ allowPrivate: true }, { port: smtp.port, allowPlaintext: true }));
      expect(error.message).toMatch(/^The SMTP server refused the message: 550 .*Mailbox unavailable/);
    } finally {
      smtp.setRefuse(false);
    }
  });
});
