import type { Channel } from '../channel.ts';
import type { MessageStatusStore } from '../message-status.ts';
import type { NormalisedReport } from './report.ts';

/** An SES sending event (a configuration set's event destination), as much of it as the service reads. */
export interface SesEvent {
  eventType: string;
  mail: { messageId: string; timestamp?: string; destination?: string[] };
  delivery?: { timestamp?: string };
  bounce?: {
    bounceType?: string;
    bounceSubType?: string;
    timestamp?: string;
    bouncedRecipients?: { emailAddress?: string; diagnosticCode?: string }[];
  };
  complaint?: { timestamp?: string; complainedRecipients?: { emailAddress?: string }[] };
  reject?: { reason?: string };
}

/**
 * The SES event a queue message carries, whichever way it came: the event itself (SNS raw delivery), inside SNS's
 * envelope (`Type: Notification`, `Message` as text), or as an EventBridge event (`source: aws.ses`, in `detail`).
 * Undefined for anything else (a receipt notification of received mail, a raw provider report).
 */
export function sesEventOf(body: unknown): SesEvent | undefined {
  let value = body as Record<string, unknown> | null;
  if (value && value.Type === 'Notification' && typeof value.Message === 'string') {
    try {
      value = JSON.parse(value.Message) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  if (value && value.source === 'aws.ses' && value.detail && typeof value.detail === 'object')
    value = value.detail as Record<string, unknown>;
  const type = value?.eventType ?? value?.notificationType;
  const mail = value?.mail as { messageId?: unknown } | undefined;
  if (typeof type !== 'string' || typeof mail?.messageId !== 'string') return undefined;
  if (!['Delivery', 'Bounce', 'Complaint', 'Reject', 'Send'].includes(type)) return undefined;
  return { ...(value as unknown as SesEvent), eventType: type };
}

/**
 * What an SES event says, as the inbound reports it applies: Delivery → delivered; a permanent Bounce → failed and
 * each bounced recipient suppressed (`bounce`); a Complaint → each complaining recipient suppressed (`complaint`);
 * Reject → failed. A transient bounce and Send change nothing.
 */
export function normaliseSesEvent(event: SesEvent, receivedAt: string): NormalisedReport[] {
  const id = event.mail.messageId;
  const base = { provider: 'ses' as const, providerMessageId: id };
  switch (event.eventType) {
    case 'Delivery':
      return [{ kind: 'status', ...base, status: 'delivered', at: event.delivery?.timestamp ?? receivedAt }];
    case 'Bounce': {
      if (event.bounce?.bounceType !== 'Permanent') return [];
      const at = event.bounce.timestamp ?? receivedAt;
      const recipients = (event.bounce.bouncedRecipients ?? []).flatMap((r) =>
        r.emailAddress ? [r.emailAddress] : [],
      );
      const why = event.bounce.bouncedRecipients?.find((r) => r.diagnosticCode)?.diagnosticCode;
      return [
        {
          kind: 'status',
          ...base,
          status: 'failed',
          at,
          error: `bounced (${event.bounce.bounceSubType ?? 'General'})${why ? `: ${why.slice(0, 200)}` : ''}`,
        },
        ...(recipients.length
          ? [{ kind: 'suppression' as const, ...base, contacts: recipients, reason: 'bounce' as const, at }]
          : []),
      ];
    }
    case 'Complaint': {
      const at = event.complaint?.timestamp ?? receivedAt;
      const recipients = (event.complaint?.complainedRecipients ?? []).flatMap((r) =>
        r.emailAddress ? [r.emailAddress] : [],
      );
      return recipients.length ? [{ kind: 'suppression', ...base, contacts: recipients, reason: 'complaint', at }] : [];
    }
    case 'Reject':
      return [
        { kind: 'status', ...base, status: 'failed', at: receivedAt, error: `rejected: ${event.reject?.reason ?? ''}` },
      ];
    default:
      return [];
  }
}

/** How long after SES accepted a mail an event naming an unknown message is still retried (the send's record lags). */
export const UNRECORDED_RETRY_MS = 5 * 60_000;

export interface ProcessSesEventDeps {
  statuses: Pick<MessageStatusStore, 'findByProviderId'>;
  channels: { findById(channelId: string): Promise<Channel | undefined> };
  apply: (channel: Channel, items: NormalisedReport[]) => Promise<unknown>;
  log: { info(message: string, extra?: Record<string, unknown>): void };
  now?: () => Date;
}

/**
 * An SES event → the events of the message it is about, on that message's channel (found by SES's message id, which
 * the send recorded). An event about a message this service did not send, or one of a channel no longer on SES,
 * changes nothing and suppresses no one: it is logged. Statuses move forward only, so a redelivered event emits
 * nothing twice.
 */
export function makeProcessSesEvent(deps: ProcessSesEventDeps) {
  const now = deps.now ?? (() => new Date());
  return async function processSesEvent(event: SesEvent): Promise<void> {
    const target = await deps.statuses.findByProviderId('ses', event.mail.messageId);
    // SES can report a mail (a Reject, a quick Delivery) before the send that made it has recorded SES's id: a fresh
    // event with no message yet is retried through the queue rather than dropped; an old one is not ours.
    const sentAt = Date.parse(event.mail.timestamp ?? '');
    if (!target && Number.isFinite(sentAt) && now().getTime() - sentAt < UNRECORDED_RETRY_MS)
      throw new Error('SES event about a mail whose send is not recorded yet: retried');
    const channel = target ? await deps.channels.findById(target.channelId) : undefined;
    if (!target || !channel || channel.projectId !== target.projectId || channel.provider.kind !== 'ses') {
      deps.log.info('SES event about a message this service did not send: nothing changed, no suppression', {
        eventType: event.eventType,
        sesMessageId: event.mail.messageId,
      });
      return;
    }
    await deps.apply(channel, normaliseSesEvent(event, now().toISOString()));
  };
}
