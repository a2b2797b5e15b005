import type { SmtpProvider } from '../../messaging/channel.ts';
import {
  callTimeoutMs,
  excerpt,
  ProviderError,
  type MessageProvider,
  type OutboundMessage,
  type ProviderReceipt,
} from '../../messaging/providers.ts';

/**
 * Email over SMTP with nodemailer, from the channel's address. The payload is mapped the way a mail client
 * expects:
 * - `From`: `"<fromName>" <channel address>` (just the address without `fromName`);
 * - `To` and `Bcc` as given (Bcc goes in the envelope, never in the headers the recipients see);
 * - `In-Reply-To` and `References` as given, so the reply threads;
 * - the text/plain part is `text` when given, else `body`; the text/html part is `html`. With both, the mail is
 *   multipart/alternative.
 * Connection, greeting and socket timeouts, and a deadline over the whole exchange.
 */
export class SmtpEmailSender implements MessageProvider {
  constructor(private readonly options: { timeoutMs: number }) {}

  /** nodemailer is loaded on the first email, not at cold start: most sends are SMS or WhatsApp. */
  private static nodemailer?: Promise<typeof import('nodemailer')>;

  async send(outbound: OutboundMessage): Promise<ProviderReceipt> {
    const { channel, message } = outbound;
    if (message.type !== 'email' || channel.provider.kind !== 'smtp')
      throw new ProviderError('The channel is not an SMTP email channel');
    const provider: SmtpProvider = channel.provider;
    const timeout = callTimeoutMs(this.options.timeoutMs, outbound.deadline);
    SmtpEmailSender.nodemailer ??= import('nodemailer');
    const nodemailer = (await SmtpEmailSender.nodemailer).default;
    const transport = nodemailer.createTransport({
      host: provider.host,
      port: provider.port,
      secure: provider.secure ?? false,
      ...(provider.user ? { auth: { user: provider.user, pass: provider.pass ?? '' } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    const p = message.payload;
    const text = p.text ?? p.body;
    let timer: NodeJS.Timeout | undefined;
    try {
      const sending = transport.sendMail({
        from: p.fromName ? { name: p.fromName, address: channel.address } : channel.address,
        to: p.to,
        ...(p.bcc ? { bcc: p.bcc } : {}),
        subject: p.subject,
        ...(text !== undefined ? { text } : {}),
        ...(p.html !== undefined ? { html: p.html } : {}),
        ...(p.inReplyTo ? { inReplyTo: p.inReplyTo } : {}),
        ...(p.references ? { references: p.references } : {}),
      });
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('SMTP deadline'), { code: 'ETIMEDOUT' })), timeout);
      });
      const info = await Promise.race([sending, deadline]);
      return { providerMessageIds: info.messageId ? [info.messageId] : [] };
    } catch (error) {
      throw new ProviderError(describeSmtpFailure(error), { cause: error });
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  }
}

/** What went wrong, in words fit for the customer: the SMTP reply when there is one, never the credentials. */
function describeSmtpFailure(error: unknown): string {
  const e = error as { code?: string; responseCode?: number; response?: string } | null;
  if (e?.responseCode)
    return `The SMTP server refused the message: ${excerpt(`${e.responseCode} ${e.response ?? ''}`)}`;
  if (e?.code === 'ETIMEDOUT' || e?.code === 'ETIMEOUT') return 'The SMTP server did not answer in time';
  if (e?.code === 'EAUTH') return 'The SMTP server refused the credentials';
  return 'The SMTP server could not be reached';
}
