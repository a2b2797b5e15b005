import { type SmtpServer, smtpServerFromUrl, smtpTransportOptions } from '../../kernel/adapters/smtp-transport.ts';
import type { NoticeEmail, NoticeMailer } from '../notice-emails.ts';

/**
 * Notice emails through the operator's SMTP server (`NOTICE_SMTP_URL`; on AWS, SES's SMTP endpoint): `smtps://`
 * (TLS from the first byte) or `smtp://` with STARTTLS required before the login and the mail, as for channels'
 * SMTP servers, unless the URL says `?allowPlaintext=true`; `user:pass@` when it asks for a login. One connection per
 * email: notices are rare. A deadline over the whole exchange (and each phase's timeout) bounds a server that does not
 * answer, well inside the deliver worker's batch time (the job is tried again later). nodemailer comes from `load`
 * (the deliver worker's composition root passes the kernel's loader): a loader imported here would put nodemailer's
 * chunk in every function that imports the webhooks area.
 */
export class SmtpNoticeMailer implements NoticeMailer {
  private readonly server: SmtpServer;

  /** Throws on a URL that is not `smtp://` or `smtps://` (at cold start, not at the first notice). */
  private readonly timeoutMs: number;
  private readonly load: () => Promise<typeof import('nodemailer')>;

  constructor(
    url: string,
    private readonly from: string,
    options: { load: () => Promise<typeof import('nodemailer')>; timeoutMs?: number },
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.load = options.load;
    this.server = smtpServerFromUrl(url);
  }

  async send(email: NoticeEmail): Promise<void> {
    const nodemailer = await this.load();
    const transport = nodemailer.default.createTransport(smtpTransportOptions(this.server, this.timeoutMs));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        transport.sendMail({
          from: this.from,
          to: email.to,
          subject: email.subject,
          text: email.text,
          messageId: email.messageId,
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the SMTP server did not finish in time')), this.timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  }
}
