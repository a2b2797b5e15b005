import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { MAX_MAIL_BYTES } from '#shared/messaging/adapters/parse-mail.ts';
import { reportKey, type InboundReport } from '#shared/messaging/inbound/report.ts';

export interface SmtpInboundOptions {
  port: number;
  host: string;
  /** The email channels of a mailbox (the channel directory). */
  findChannels(address: string): Promise<{ projectId: string; channelId: string }[]>;
  /** Stores the raw message (the transfer bucket). */
  park(key: string, raw: Buffer): Promise<void>;
  /** Queues one report per channel (the `inbound` queue). */
  enqueue(report: InboundReport): Promise<void>;
  onError?(error: unknown): void;
}

export interface RunningSmtpInbound {
  port: number;
  stop(): Promise<void>;
}

type Session = SMTPServerSession & { channels?: { projectId: string; channelId: string }[] };

/**
 * The local stand-in for SES receiving: an SMTP listener on 127.0.0.1 that refuses recipients that are no email
 * channel's address (550 at RCPT), takes messages up to 25 MB, and does what the SES rule set does on AWS: the raw
 * message into the transfer bucket and a report on the `inbound` queue, so the same worker parses it. The mail is
 * accepted (250) only once both are stored.
 */
export async function startSmtpInbound(options: SmtpInboundOptions): Promise<RunningSmtpInbound> {
  const server = new SMTPServer({
    name: 'switchboard.local',
    banner: 'Switchboard inbound mail',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MAIL_BYTES,
    logger: false,
    onRcptTo(address, session: Session, callback) {
      options.findChannels(address.address).then(
        (found) => {
          if (!found.length) {
            const refused = new Error(`No mailbox here for ${address.address}`) as Error & { responseCode: number };
            refused.responseCode = 550;
            return callback(refused);
          }
          const known = session.channels ?? [];
          for (const c of found) if (!known.some((k) => k.channelId === c.channelId)) known.push(c);
          session.channels = known;
          callback();
        },
        (error: unknown) => {
          options.onError?.(error);
          const failed = new Error('Temporary failure looking up the mailbox') as Error & { responseCode: number };
          failed.responseCode = 451;
          callback(failed);
        },
      );
    },
    onData(stream, session: Session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_MAIL_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded || size > MAX_MAIL_BYTES) {
          const tooLarge = new Error('The message is larger than 25 MB') as Error & { responseCode: number };
          tooLarge.responseCode = 552;
          return callback(tooLarge);
        }
        store(Buffer.concat(chunks, size), session.channels ?? []).then(
          () => callback(),
          (error: unknown) => {
            options.onError?.(error);
            const failed = new Error('Temporary failure storing the message') as Error & { responseCode: number };
            failed.responseCode = 451;
            callback(failed);
          },
        );
      });
    },
  });

  async function store(raw: Buffer, channels: { projectId: string; channelId: string }[]): Promise<void> {
    const receivedAt = Date.now();
    const key = reportKey('email', `${receivedAt}-${randomBytes(12).toString('hex')}.eml`);
    await options.park(key, raw);
    await Promise.all(
      channels.map((c) =>
        options.enqueue({
          v: 1,
          source: 'email',
          projectId: c.projectId,
          channelId: c.channelId,
          receivedAt,
          bodyRef: key,
        }),
      ),
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => options.onError?.(error));
  return {
    port: (server.server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
