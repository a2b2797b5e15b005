import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { MAX_MAIL_BYTES } from '#shared/messaging/index.ts';
import { SES_OBJECT_PREFIX } from '#shared/contract/buckets.ts';

/** The fields of SES's receipt notification the inbound worker reads (the rest of SES's is not needed here). */
export interface SesReceiptNotification {
  notificationType: 'Received';
  /** `source`: the envelope sender (MAIL FROM), empty for a bounce's null sender; `commonHeaders.from` as written. */
  mail: {
    timestamp: string;
    messageId: string;
    source: string;
    destination: string[];
    commonHeaders: { from?: string[] };
  };
  receipt: {
    timestamp: string;
    recipients: string[];
    spamVerdict: { status: string };
    virusVerdict: { status: string };
    spfVerdict: { status: string };
    dkimVerdict: { status: string };
    dmarcVerdict: { status: string };
    action: { type: 'S3'; bucketName: string; objectKey: string };
  };
}

/**
 * RCPT commands one message may carry; the next gets 452, as RFC 5321 section 4.5.3.1.10 says. Counted per message (a
 * session may send several), every command: a repeated or refused recipient too.
 */
export const MAX_RECIPIENTS_PER_MESSAGE = 100;

/**
 * Connections the listener holds at once; one more is answered `421` and closed. Local mail comes from a developer's
 * client or a test, a handful at a time: 100 is far above that and bounds the sockets and sessions kept.
 */
export const MAX_SMTP_CONNECTIONS = 100;

/**
 * A connection with nothing said for this long is closed (`421`). RFC 5321 section 4.5.3.2.7 asks a server for 5 minutes
 * between commands; a local listener's clients are on the same machine, so one minute (smtp-server's default,
 * written down here) frees an abandoned connection sooner without cutting any real client.
 */
export const SMTP_IDLE_TIMEOUT_MS = 60_000;

export interface SmtpInboundOptions {
  port: number;
  host: string;
  /** The email channels of a mailbox (the channel directory). */
  findChannels(address: string): Promise<{ projectId: string; channelId: string }[]>;
  /** Stores the raw message (the transfer bucket). */
  park(key: string, raw: Buffer): Promise<void>;
  /** Queues the SES-shaped receipt notification (the `inbound` queue). */
  enqueue(notification: SesReceiptNotification): Promise<void>;
  onError?(error: unknown): void;
  /** Idle time before a connection is closed (default {@link SMTP_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
}

export interface RunningSmtpInbound {
  port: number;
  stop(): Promise<void>;
}

/**
 * The local stand-in for SES receiving: an SMTP listener on 127.0.0.1 that refuses recipients that are no email
 * channel's address (550 at RCPT), takes messages up to 25 MB (552 above) with at most 100 recipients (452 after),
 * holds at most 100 connections (421 beyond) and closes idle ones, and does what the SES rule set does on AWS: the
 * raw message into the transfer bucket and a report on the `inbound` queue, so the same worker parses it. The mail
 * is accepted (250) only once both are stored.
 */
export async function startSmtpInbound(options: SmtpInboundOptions): Promise<RunningSmtpInbound> {
  /** RCPT commands said so far in each message (its envelope), refused and repeated ones included. */
  const rcptCommands = new WeakMap<SMTPServerEnvelope, number>();
  const server = new SMTPServer({
    name: 'switchboard.local',
    banner: 'Switchboard inbound mail',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_MAIL_BYTES,
    maxClients: MAX_SMTP_CONNECTIONS,
    socketTimeout: options.idleTimeoutMs ?? SMTP_IDLE_TIMEOUT_MS,
    logger: false,
    onRcptTo(address, session, callback) {
      // Every RCPT of the message counts, a repeated or refused one too: each costs a lookup, and the cap bounds it.
      // The envelope is new for each message (MAIL FROM, RSET, HELO), so the count starts again with it.
      const said = (rcptCommands.get(session.envelope) ?? 0) + 1;
      rcptCommands.set(session.envelope, said);
      if (said > MAX_RECIPIENTS_PER_MESSAGE) {
        const tooMany = new Error(`Too many recipients: at most ${MAX_RECIPIENTS_PER_MESSAGE} per message`) as Error & {
          responseCode: number;
        };
        tooMany.responseCode = 452;
        return callback(tooMany);
      }
      options.findChannels(address.address).then(
        (found) => {
          if (!found.length) {
            const refused = new Error(`No mailbox here for ${address.address}`) as Error & { responseCode: number };
            refused.responseCode = 550;
            return callback(refused);
          }
          // Accepted: smtp-server adds it to this message's envelope (once, however often it is named).
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
    onData(stream, session, callback) {
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
        const mailFrom = session.envelope.mailFrom;
        store(
          Buffer.concat(chunks, size),
          session.envelope.rcptTo.map((r) => r.address),
          mailFrom ? mailFrom.address : '',
        ).then(
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

  /**
   * As SES receiving does on AWS (infra/inbound-mail.ts): the raw message under `SES_OBJECT_PREFIX` + its message id
   * (new for each message accepted, as SES's), then one receipt notification on the `inbound` queue naming the
   * accepted recipients, so the inbound worker reads local mail exactly as it reads SES's. The local listener scans
   * nothing and checks no SPF, DKIM or DMARC: every verdict is `DISABLED` (what SES says of a check it did not run),
   * which the worker reads as `unknown` and never as a reason to drop.
   */
  async function store(raw: Buffer, recipients: string[], source: string): Promise<void> {
    const at = new Date();
    const messageId = `local${at.getTime().toString(36)}${randomBytes(12).toString('hex')}`;
    const objectKey = `${SES_OBJECT_PREFIX}${messageId}`;
    await options.park(objectKey, raw);
    const notChecked = { status: 'DISABLED' };
    const from = fromHeader(raw);
    await options.enqueue({
      notificationType: 'Received',
      mail: {
        timestamp: at.toISOString(),
        messageId,
        source,
        destination: recipients,
        commonHeaders: from === undefined ? {} : { from: [from] },
      },
      receipt: {
        timestamp: at.toISOString(),
        recipients,
        spamVerdict: notChecked,
        virusVerdict: notChecked,
        spfVerdict: notChecked,
        dkimVerdict: notChecked,
        dmarcVerdict: notChecked,
        action: { type: 'S3', bucketName: 'transfer', objectKey },
      },
    });
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

/**
 * The `From` header as SES's notification lists it (`commonHeaders.from`), unfolded: looked for in the header block
 * only, and only in the message's first 64 KB.
 */
export function fromHeader(raw: Buffer): string | undefined {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const block = end < 0 ? head : head.slice(0, end);
  const match = /^from:[ \t]*((?:.*)(?:\r?\n[ \t].*)*)/im.exec(block);
  return match ? match[1]!.replace(/\r?\n[ \t]+/g, ' ').trim() : undefined;
}
