import { isIPv6, type LookupFunction } from 'node:net';
import type { SmtpProvider } from '../channel.ts';
import {
  callTimeoutMs,
  excerpt,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../providers.ts';
import { forbiddenAddressReason, isIpLiteral, parseIPv4 } from '../../kernel/destination-policy.ts';
import { ForbiddenDestinationError, guardedLookup } from '../../kernel/adapters/guarded-lookup.ts';
import { loadNodemailer, smtpTransportOptions } from '../../kernel/adapters/smtp-transport.ts';

export interface SmtpEmailSenderOptions {
  /** Deadline of one send, connect to the server's last answer. */
  timeoutMs: number;
  /** Local runs send to 127.0.0.1; deployments never to private, loopback, link-local or metadata addresses. */
  allowPrivate: boolean;
  /** The ports a channel may name (`SMTP_ALLOWED_PORTS`); `any` where private destinations are the point (local). */
  allowedPorts: readonly number[] | 'any';
  /** For tests: a resolver in place of the system DNS (it still goes through the address policy). */
  lookup?: LookupFunction;
}

/**
 * Email over SMTP with nodemailer, from the channel's address. The payload is mapped the way a mail client
 * expects:
 * - `From`: `"<fromName>" <channel address>` (just the address without `fromName`);
 * - `To` and `Bcc` as given (Bcc goes in the envelope, never in the headers the recipients see);
 * - `In-Reply-To` and `References` as given, so the reply threads;
 * - `List-Unsubscribe: <mailto:{channel address}?subject=unsubscribe>` (contract §17);
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
    try {
      const [address, nodemailer] = await Promise.race([
        Promise.all([this.checkedAddress(provider.host), loadNodemailer()]),
        deadline,
      ]);
      // Connects to the checked address; TLS checks the certificate against the name the customer gave.
      transport = nodemailer.default.createTransport(
        smtpTransportOptions(
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
      );
      const p = message.payload;
      const text = p.text ?? p.body;
      const sending = transport.sendMail({
        from: p.fromName ? { name: p.fromName, address: channel.address } : channel.address,
        to: p.to,
        ...(p.bcc ? { bcc: p.bcc } : {}),
        subject: p.subject,
        ...(text !== undefined ? { text } : {}),
        ...(p.html !== undefined ? { html: p.html } : {}),
        ...(p.inReplyTo ? { inReplyTo: p.inReplyTo } : {}),
        ...(p.references ? { references: p.references } : {}),
        // RFC 2369: mail clients offer "unsubscribe"; the mail it makes arrives on this channel and suppresses its
        // sender (shared/messaging/inbound/process-inbound.ts).
        headers: { 'List-Unsubscribe': `<mailto:${channel.address}?subject=unsubscribe>` },
      });
      const info = await Promise.race([sending, deadline]);
      return { providerMessageIds: info.messageId ? [info.messageId] : [] };
    } catch (error) {
      throw new ProviderError(describeSmtpFailure(error), { cause: error });
    } finally {
      clearTimeout(timer);
      transport?.close();
    }
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
