import { randomBytes } from 'node:crypto';

/**
 * A delivery status notification (RFC 3464) as a mail server sends it back to `channelAddress`: a hard bounce
 * (`Action: failed`, `5.1.1`) for each recipient, and the returned headers naming `originalMessageId`. A recipient
 * given as `[final, original]` bounced at `final` after forwarding.
 */
export function dsnMail(
  channelAddress: string,
  originalMessageId: string,
  recipients: (string | [final: string, original: string])[],
): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.customer.example.org>',
    `To: ${channelAddress}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn-${randomBytes(6).toString('hex')}@mx.customer.example.org>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="RPT"',
    '',
    '--RPT',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.customer.example.org. Your message could not be delivered.',
    '',
    '--RPT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.example.org',
    ...recipients.flatMap((r) => {
      const [final, original] = Array.isArray(r) ? r : [r, r];
      return [
        '',
        `Final-Recipient: rfc822; ${final}`,
        `Original-Recipient: rfc822;${original}`,
        'Action: failed',
        'Status: 5.1.1',
        `Diagnostic-Code: smtp; 550 5.1.1 <${final}>: Recipient address rejected: User unknown`,
      ];
    }),
    '',
    '--RPT',
    'Content-Type: text/rfc822-headers',
    '',
    `From: ${channelAddress}`,
    'Subject: Pedido',
    `Message-ID: ${originalMessageId}`,
    '',
    '--RPT--',
    '',
  ].join('\r\n');
}
