import type { InboundReport } from './report.ts';

/**
 * SES receiving on AWS (the stack's receipt rule: the raw mail into the transfer bucket, then a notification on the
 * `inbound` queue through SNS) as the same reports the local SMTP listener queues: one per email channel of each
 * recipient. Undefined when the message is not an SES receipt notification.
 */
export async function reportsFromSesNotification(
  body: unknown,
  findChannels: (address: string) => Promise<{ projectId: string; channelId: string }[]>,
): Promise<InboundReport[] | undefined> {
  // Through SNS without raw delivery, the notification is the envelope's `Message`.
  // biome-ignore lint/suspicious/noExplicitAny: an untrusted notification, read field by field.
  let notification = body as Record<string, any> | null;
  if (notification?.Type === 'Notification' && typeof notification.Message === 'string')
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    notification = JSON.parse(notification.Message) as Record<string, any>;
  if (notification?.notificationType !== 'Received') return undefined;
  const action = notification.receipt?.action;
  if (action?.type !== 'S3' || typeof action.objectKey !== 'string') return undefined;
  const recipients: string[] = Array.isArray(notification.receipt?.recipients) ? notification.receipt.recipients : [];
  const receivedAt = Date.parse(notification.mail?.timestamp ?? '') || Date.now();
  const reports: InboundReport[] = [];
  for (const recipient of recipients) {
    for (const c of await findChannels(recipient))
      if (!reports.some((r) => r.channelId === c.channelId))
        reports.push({ v: 1, source: 'email', ...c, receivedAt, bodyRef: action.objectKey });
  }
  return reports;
}
