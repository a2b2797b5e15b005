import { randomUUID } from 'node:crypto';
import { isIPv6, type LookupFunction } from 'node:net';
import type { ListUnsubscribe } from '../list-unsubscribe.ts';
import type { EmailPayload } from '../payloads.ts';
import type { SmtpProvider } from '../channel.ts';
import {
  callTimeoutMs,
  depart,
  excerpt,
  LateDepartureError,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../providers.ts';
import { forbiddenAddressReason, isIpLiteral, parseIPv4 } from '../../kernel/destination-policy.ts';
import { ForbiddenDestinationError, guardedLookup } from '../../kernel/adapters/guarded-lookup.ts';
import { loadNodemailer } from '../../kernel/adapters/load-nodemailer.ts';
import { smtpTransportOptions } from '../../kernel/adapters/smtp-transport.ts';

export interface SmtpEmailSenderOptions {
  /** Deadline of one send, connect to the server's last answer. */
  timeoutMs: number;
  /** Local runs send to 127.0.0.1; deployments never to private, loopback, link-local or metadata addresses. */
  allowPrivate: boolean;
  /** The ports a channel may name (`SMTP_ALLOWED_PORTS`); `any` where private destinations are the point (local). */
  allowedPorts: readonly number[] | 'any';
  /** For tests: a resolver in place of the system DNS (it still goes through the address policy). */
  lookup?: LookupFunction;
  /** Each recipient's `List-Unsubscribe` (its own address: an unsubscribe by mail is believed only from it). */
  unsubscribe: Pick<ListUnsubscribe, 'headers'>;
}

/**
 * Email over SMTP with nodemailer, from the channel's address. The payload is mapped the way a mail client
 * expects:
 * - `From`: `"<fromName>" <channel address>` (just the address without `fromName`);
 * - `To` as given; one copy per recipient (`to` and `bcc`), each with that recipient alone in the envelope (a Bcc
 *   address is never in the headers the recipients see), all under one Message-ID;
 * - `In-Reply-To` and `References` as given, so the reply threads;
 * - `List-Unsubscribe: <mailto:{the channel's unsubscribe address for this recipient}?subject=unsubscribe>`
 *   (../list-unsubscribe.ts), which is why each recipient gets a copy of its own;
 * - the text/plain part is `text` when given, else `body`; the text/html part is `html`. With both, the mail is
 *   multipart/alternative.
 *
 * The channel's host is a customer setting, so it gets the webhooks' SSRF guard on the address actually
 * connected to: the name is resolved here through {@link guardedLookup} (IP literals in any form checked
 * directly) and nodemailer connects to that address, with the name kept for TLS (SNI and certificate check).
 * TLS is required (implicit with `secure`, else STARTTLS) unless the channel sets `allowPlaintext`. Connection,
 * greeting and socket timeouts, and a deadline over the whole exchange.
 */
export class SmtpEmailSender implements MessageProvider {
  private readonly lookup: LookupFunction;

  constructor(private readonly options: SmtpEmailSenderOptions) {
    this.lookup = options.lookup ?? guardedLookup({ allowPrivate: options.allowPrivate });
  }

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'email' || channel.provider.kind !== 'smtp')
      throw new ProviderError('The channel is not an SMTP email channel');
    const provider: SmtpProvider = channel.provider;
    const { allowedPorts } = this.options;
    if (allowedPorts !== 'any' && !allowedPorts.includes(provider.port))
      throw new ProviderError(`SMTP port ${provider.port} is not allowed; use one of ${allowedPorts.join(', ')}`);
    const timeout = callTimeoutMs(this.options.timeoutMs, outbound.deadline);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('SMTP deadline'), { code: 'ETIMEDOUT' })), timeout);
    });
    deadline.catch(() => {});
    let transport: import('nodemailer').Transporter | undefined;
    const progress: CopiesSent = { messageId: newMessageId(channel.address), accepted: 0 };
    try {
      const [address, nodemailer] = await Promise.race([
        Promise.all([this.checkedAddress(provider.host), loadNodemailer()]),
        deadline,
      ]);
      // Connects to the checked address; TLS checks the certificate against the name the customer gave.
      transport = nodemailer.default.createTransport({
        ...smtpTransportOptions(
          {
            host: provider.host,
            port: provider.port,
            secure: provider.secure ?? false,
            allowPlaintext: provider.allowPlaintext ?? false,
            ...(provider.user ? { user: provider.user, pass: provider.pass ?? '' } : {}),
          },
          timeout,
          address,
        ),
        // The recipients' copies share a few connections: one copy after another on each.
        pool: true,
        maxConnections: Math.min(COPY_CONNECTIONS, mailRecipients(message.payload).length),
      });
      const sending = this.sendCopies(transport, outbound, progress);
      // Past the deadline the copies still on their way fail when the transport closes: nobody waits for them.
      sending.catch(() => {});
      return await Promise.race([sending, deadline]);
    } catch (error) {
      if (error instanceof ProviderError || error instanceof LateDepartureError) throw error;
      if (progress.waitingForSlot)
        throw new LateDepartureError('the deadline passed while the mail waited for its slot');
      const sentProviderMessageIds = progress.accepted ? [progress.messageId] : [];
      throw new ProviderError(describeSmtpFailure(error), { cause: error, sentProviderMessageIds });
    } finally {
      clearTimeout(timer);
      transport?.close();
    }
  }

  /**
   * One copy per recipient (`to` and `bcc`), each with that recipient alone in the envelope and its own
   * `List-Unsubscribe`; the headers every recipient sees (`To`, the Message-ID) are the same in every copy. A copy the
   * server refuses (a recipient or the content: 5xx, 4xx) does not stop the others, as one transaction to several
   * recipients would not; the send fails when no copy was accepted, or when a connection fails (what had already
   * gone out is reported with the error).
   */
  private async sendCopies(
    transport: import('nodemailer').Transporter,
    { channel, message, departure }: OutboundMessage,
    progress: CopiesSent,
  ): Promise<ProviderReceipt> {
    if (message.type !== 'email') throw new ProviderError('The channel is not an SMTP email channel');
    const p = message.payload;
    const text = p.text ?? p.body;
    const { messageId } = progress;
    const common = {
      from: p.fromName ? { name: p.fromName, address: channel.address } : channel.address,
      to: p.to,
      subject: p.subject,
      messageId,
      ...(text !== undefined ? { text } : {}),
      ...(p.html !== undefined ? { html: p.html } : {}),
      ...(p.inReplyTo ? { inReplyTo: p.inReplyTo } : {}),
      ...(p.references ? { references: p.references } : {}),
    };
    const recipients = mailRecipients(p);
    // Composed once; each copy differs only in its List-Unsubscribe value (same length: the token is fixed-size).
    const headersOf = (recipient: string) => this.options.unsubscribe.headers(channel, recipient);
    const first = await composeMail({ ...common, headers: headersOf(recipients[0]!) });
    const copyFor = async (recipient: string) =>
      withHeaderValues(first, headersOf(recipients[0]!), headersOf(recipient)) ??
      (await composeMail({ ...common, headers: headersOf(recipient) }));
    // A paced send's last check before the first copy is handed to the transport.
    progress.waitingForSlot = true;
    await depart(departure);
    progress.waitingForSlot = false;
    // All queued at once: the pool sends them over its connections as they free up.
    const results = await Promise.allSettled(
      recipients.map(async (recipient) => {
        await transport.sendMail({
          envelope: { from: channel.address, to: [recipient] },
          raw: await copyFor(recipient),
        });
        progress.accepted++;
      }),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const broken = failures.find((error) => !refusedCopy(error));
    if (broken !== undefined) throw broken;
    if (!progress.accepted) throw new ProviderError(describeSmtpFailure(failures[0]), { cause: failures[0] });
    return { providerMessageIds: [messageId] };
  }

  /** The address to connect to: an IP literal as itself (normalised), a name through the guarded lookup. */
  private checkedAddress(host: string): Promise<string> {
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (isIpLiteral(bare)) {
      const reason = this.options.allowPrivate ? undefined : forbiddenAddressReason(bare);
      if (reason) return Promise.reject(new ForbiddenDestinationError(host, reason));
      return Promise.resolve(canonicalIp(bare));
    }
    return new Promise((resolve, reject) => {
      this.lookup(bare, { all: false }, (error, address) => (error ? reject(error) : resolve(address as string)));
    });
  }
}

/**
 * Connections the copies of one mail share at most. SMTP servers limit connections per client (often to a handful);
 * a few in parallel keep 100 copies within the send's deadline over a real network, where each copy costs a few
 * round trips.
 */
const COPY_CONNECTIONS = 4;

/** How far the copies of one mail got. */
interface CopiesSent {
  messageId: string;
  accepted: number;
  /** A paced send waiting for its slot again: a deadline then gives the send back (nothing was handed over). */
  waitingForSlot?: boolean;
}

/** A new Message-ID at the channel's domain, the same in every copy (how bounces and replies name the mail). */
function newMessageId(channelAddress: string): string {
  return `<${randomUUID()}@${channelAddress.slice(channelAddress.lastIndexOf('@') + 1)}>`;
}

/** The mail as nodemailer writes it (MIME, headers folded), loaded on the first email like nodemailer itself. */
async function composeMail(options: import('nodemailer/lib/mailer').Options): Promise<Buffer> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  return new Promise((resolve, reject) =>
    new MailComposer(options).compile().build((error, raw) => (error ? reject(error) : resolve(raw))),
  );
}

/**
 * `raw` with each header value of `from` replaced by the same header's value in `to`, in the header block: undefined
 * when a value is not found there or differs in length (then the copy is composed on its own).
 */
function withHeaderValues(raw: Buffer, from: Record<string, string>, to: Record<string, string>): Buffer | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const copy = Buffer.from(raw);
  for (const [name, value] of Object.entries(from)) {
    const next = to[name];
    if (next === undefined || next.length !== value.length) return undefined;
    const at = raw.indexOf(value, 0, 'latin1');
    if (at < 0 || at > end) return undefined;
    copy.write(next, at, 'latin1');
  }
  return copy;
}

/** Every address a mail goes to (`to`, then `bcc`), each once whatever its case. */
export function mailRecipients(payload: EmailPayload): string[] {
  const seen = new Set<string>();
  return [...payload.to, ...(payload.bcc ?? [])].filter((address) => {
    const key = address.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The server refused this copy (its recipient or its content) and kept the connection: the next copy may go. */
function refusedCopy(error: unknown): boolean {
  const e = error as { code?: string; responseCode?: number } | null;
  return (e?.code === 'EENVELOPE' || e?.code === 'EMESSAGE') && e.responseCode !== undefined && e.responseCode !== 421;
}

/** `127.1`, `2130706433` and `0x7f000001` are what `inet_aton` reads as 127.0.0.1: connect to that. */
function canonicalIp(literal: string): string {
  if (isIPv6(literal)) return literal;
  const v4 = parseIPv4(literal);
  if (v4 === undefined) return literal;
  return [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
}

/**
 * What went wrong, in words fit for the customer: the SMTP reply when there is one, never the credentials. A
 * reply is quoted only once the server has greeted with 220: text from something that is not an SMTP server
 * (a database, a cache, an internal HTTP service) never reaches the caller.
 */
function describeSmtpFailure(error: unknown): string {
  if (error instanceof ForbiddenDestinationError)
    return `The SMTP host is refused: it resolves to a ${error.reason} address`;
  const e = error as { code?: string; responseCode?: number; response?: string; command?: string } | null;
  const greeted = e?.command !== undefined && e.command !== 'CONN';
  if (e?.code === 'ETLS') {
    return e.command === 'STARTTLS' && e.responseCode
      ? 'The SMTP server does not offer STARTTLS; use "secure": true, or "allowPlaintext": true to send without TLS'
      : 'TLS with the SMTP server failed (certificate refused or handshake error)';
  }
  if (greeted && e?.responseCode)
    return `The SMTP server refused the message: ${excerpt(`${e.responseCode} ${e.response ?? ''}`)}`;
  if (e?.code === 'ETIMEDOUT' || e?.code === 'ETIMEOUT') return 'The SMTP server did not answer in time';
  if (e?.code === 'EAUTH') return 'The SMTP server refused the credentials';
  if (e?.code === 'EPROTOCOL' && !greeted) return 'The host did not answer as an SMTP server';
  return 'The SMTP server could not be reached';
}
