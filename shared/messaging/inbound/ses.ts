import type { AuthenticationResult, InboundReport, MailAuthentication, ReceivedMessage } from './report.ts';

/** A verdict status in SES's receipt notification (`receipt.spfVerdict.status`...). */
type SesVerdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

/**
 * SES's verdict on a sender check as `data.authentication` says it. SES documents `GRAY` for SPF,
 * DKIM and DMARC as "nothing to check" (no SPF record for the MAIL FROM domain, the message is not DKIM-signed, no
 * DMARC policy): `none`. `PROCESSING_FAILED` (SES could not check), `DISABLED` (not checked: the local listener
 * checks nothing), a missing verdict and anything else: `unknown`.
 */
export function authenticationResult(status: unknown): AuthenticationResult {
  switch (status as SesVerdict) {
    case 'PASS':
      return 'pass';
    case 'FAIL':
      return 'fail';
    case 'GRAY':
      return 'none';
    default:
      return 'unknown';
  }
}

/** Nothing was checked (a mail that did not come through SES's notification, or the sandbox). */
export const UNCHECKED_MAIL: MailAuthentication = Object.freeze({ spf: 'unknown', dkim: 'unknown', dmarc: 'unknown' });

export interface SesNotificationLog {
  info(message: string, extra?: Record<string, unknown>): void;
}

/**
 * SES receiving on AWS (the stack's receipt rule: the raw mail into the transfer bucket, then a notification on the
 * `inbound` queue through SNS), and the local SMTP listener, which queues the same notification: one report per
 * email channel of each recipient, carrying SES's message id and its SPF/DKIM/DMARC verdicts. A mail SES judged spam
 * or infected (`spamVerdict` or `virusVerdict` `FAIL`) gives no report: dropped, and logged.
 * Undefined when the message is not an SES receipt notification.
 */
export async function reportsFromSesNotification(
  body: unknown,
  findChannels: (address: string) => Promise<{ projectId: string; channelId: string }[]>,
  log?: SesNotificationLog,
): Promise<InboundReport[] | undefined> {
  // Through SNS without raw delivery, the notification is the envelope's `Message`.
  // biome-ignore lint/suspicious/noExplicitAny: an untrusted notification, read field by field.
  let notification = body as Record<string, any> | null;
  if (notification?.Type === 'Notification' && typeof notification.Message === 'string')
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    notification = JSON.parse(notification.Message) as Record<string, any>;
  if (notification?.notificationType !== 'Received') return undefined;
  const receipt = notification.receipt;
  const action = receipt?.action;
  if (action?.type !== 'S3' || typeof action.objectKey !== 'string') return undefined;
  const sesMessageId = typeof notification.mail?.messageId === 'string' ? notification.mail.messageId : undefined;
  const spam = receipt.spamVerdict?.status;
  const virus = receipt.virusVerdict?.status;
  if (spam === 'FAIL' || virus === 'FAIL') {
    log?.info('inbound mail SES judged spam or infected: dropped', {
      sesMessageId,
      spamVerdict: spam,
      virusVerdict: virus,
    });
    return [];
  }
  const ses = {
    // The stored object is as unique per delivery as the id (SES names it by the id); it stands in if the id is missing.
    messageId: sesMessageId ?? `object:${action.objectKey}`,
    authentication: {
      spf: authenticationResult(receipt.spfVerdict?.status),
      dkim: authenticationResult(receipt.dkimVerdict?.status),
      dmarc: authenticationResult(receipt.dmarcVerdict?.status),
    },
  };
  const recipients: string[] = Array.isArray(receipt.recipients) ? receipt.recipients : [];
  const receivedAt = Date.parse(notification.mail?.timestamp ?? '') || Date.now();
  const reports: InboundReport[] = [];
  for (const recipient of recipients.slice(0, MAX_RECIPIENTS)) {
    if (typeof recipient !== 'string') continue;
    for (const c of await findChannels(recipient)) {
      const report = reports.find((r) => r.channelId === c.channelId);
      if (report) report.recipients!.push(recipient);
      else
        reports.push({
          v: 1,
          source: 'email',
          ...c,
          receivedAt,
          bodyRef: action.objectKey,
          ses,
          recipients: [recipient],
        });
    }
  }
  return reports;
}

/** Recipients read from one notification (SES and the local listener take 100 per message). */
const MAX_RECIPIENTS = 100;

/**
 * A parsed mail with what its delivery says: identified by the SES message id (a redelivered notification is the
 * same message; two mails with the same `Message-ID` are two), SES's verdicts as `authentication`, and the envelope
 * recipients that reached the channel. A report without a receipt (queued before receipts were carried) is identified
 * by its stored object.
 */
export function withDelivery(message: ReceivedMessage, report: InboundReport): ReceivedMessage {
  const transportId = report.ses ? `ses:${report.ses.messageId}` : report.bodyRef && `object:${report.bodyRef}`;
  return {
    ...message,
    ...(transportId ? { transportId } : {}),
    ...(message.email
      ? {
          email: {
            ...message.email,
            authentication: report.ses?.authentication ?? UNCHECKED_MAIL,
            ...(report.recipients ? { envelopeTo: report.recipients } : {}),
          },
        }
      : {}),
  };
}
