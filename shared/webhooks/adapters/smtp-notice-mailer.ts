import type { NoticeEmail, NoticeMailer } from '../notice-emails.ts';

/**
 * Notice emails through the operator's SMTP server (`NOTICE_SMTP_URL`: `smtp://` with STARTTLS when the server offers
 * it, or `smtps://`; `user:pass@` when it asks for a login; on AWS, SES's SMTP endpoint). One connection per email:
 * notices are rare. Connection, greeting and socket timeouts keep a server that does not answer from holding the
 * fan-out (the event is received again and the mail retried).
 */
export class SmtpNoticeMailer implements NoticeMailer {
  /** nodemailer is loaded with the first notice, not at cold start. */
  private static nodemailer?: Promise<typeof import('nodemailer')>;

  constructor(
    private readonly url: string,
    private readonly from: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async send(email: NoticeEmail): Promise<void> {
    SmtpNoticeMailer.nodemailer ??= import('nodemailer');
    const nodemailer = await SmtpNoticeMailer.nodemailer;
    const transport = nodemailer.default.createTransport({
      // The URL's host, port, `smtps:` (implicit TLS) and `user:pass@`, as nodemailer reads a connection URL.
      url: this.url,
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
    } as import('nodemailer').TransportOptions);
    try {
      await transport.sendMail({
        from: this.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        messageId: email.messageId,
      });
    } finally {
      transport.close();
    }
  }
}
