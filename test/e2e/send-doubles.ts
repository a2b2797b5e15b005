import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { listenLocal } from '#test/support/listen.ts';

/** A request an HTTP double received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** When its headers were read (epoch ms): its body may take a few more turns of this process's event loop. */
  receivedAt: number;
}

export type DoubleMode = 'ok' | 'fail' | 'hang';

/** Twilio's answer to a Messages create: 201, the message's SID (`SM` and 32 characters, from `index`), queued. */
export const twilioQueued = (index: number) => ({
  status: 201,
  body: { sid: `SM${String(index).padStart(32, '0')}`, status: 'queued' },
});

/**
 * An HTTP stand-in for a provider API (Twilio, WhatsApp Cloud): records every request and answers with `reply`,
 * or fails (`fail`: the status and body given), or never answers (`hang`).
 */
export async function startHttpDouble(options: {
  reply: (req: RecordedRequest, index: number) => { status: number; body: unknown };
}) {
  const requests: RecordedRequest[] = [];
  let mode: DoubleMode = 'ok';
  let failure = { status: 500, body: {} as unknown };
  let failAfter = 0;
  const server: Server = createServer((req, res) => {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt,
      };
      requests.push(recorded);
      const index = requests.length - 1;
      if (mode === 'hang') return;
      const answer = mode === 'fail' && index >= failAfter ? failure : options.reply(recorded, index);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  const local = await listenLocal(server);
  return {
    baseUrl: local.baseUrl,
    requests,
    /** `fail` answers `status`/`body` from the `after`-th request on (0 = every request). */
    setMode(next: DoubleMode, fail?: { status: number; body: unknown; after?: number }) {
      mode = next;
      if (fail) failure = { status: fail.status, body: fail.body };
      failAfter = fail?.after ?? 0;
    },
    reset() {
      requests.length = 0;
      mode = 'ok';
      failAfter = 0;
    },
    close: local.close,
  };
}

/** A mail the SMTP double accepted: the SMTP envelope and the raw message, headers parsed. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  auth?: { username: string; password: string };
  raw: string;
  headers: Record<string, string>;
}

/** A real SMTP server (smtp-server) on 127.0.0.1 that keeps what it receives; can refuse recipients. */
export async function startSmtpDouble() {
  const mails: ReceivedMail[] = [];
  /** Recipients refused (one entry per refused RCPT TO). */
  const refused: string[] = [];
  let refuse = false;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: { username: auth.username, password: auth.password } });
    },
    onRcptTo(address, _session, callback) {
      if (refuse) {
        refused.push(address.address);
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const user = session.user as { username: string; password: string } | undefined;
        mails.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          ...(user ? { auth: user } : {}),
          raw,
          headers: parseHeaders(raw),
        });
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    refused,
    setRefuse(value: boolean) {
      refuse = value;
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Top-level headers of a raw message, unfolded, names lower-cased. */
export function parseHeaders(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}
