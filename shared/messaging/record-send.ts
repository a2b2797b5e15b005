import type { CustomTokenGrant } from '../auth/index.ts';
import { type EventPublisher, markOf, type WebhookEventType } from '../events/index.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { Channel } from './channel.ts';
import { messageIdsIn } from './mail-threads.ts';
import type { MessageRecord } from './message.ts';
import type { MessageLog } from './message.ts';
import type { MessageStatusStore } from './message-status.ts';
import type { SendPayload } from './payloads.ts';
import { recipient, recipientContacts } from './send-checks.ts';

/** Records above this are cut (DynamoDB items hold at most 400 KB). */
export const RECORD_PAYLOAD_BYTES = 300 * 1024;
/** Event payloads are kept small: the event says what was sent, the record keeps the rest. */
const EVENT_PAYLOAD_BYTES = 32 * 1024;

/**
 * The last step of a send: the message recorded with its `message.sent` / `message.failed` marked in the same write,
 * then the event queued for the channel's webhooks and the mark cleared. Neither failure changes what the provider
 * did: a record that cannot be written still lets the event go (unmarked), an event that cannot be queued is left
 * marked for the sweep.
 */
export function makeRecordSend(deps: {
  messages: Pick<MessageLog, 'record'>;
  statuses: Pick<MessageStatusStore, 'clearEvent'>;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  onBackgroundError: (what: string, cause: unknown) => void;
  now: () => Date;
}) {
  const { now } = deps;
  return async function finish(
    channel: Channel,
    grant: CustomTokenGrant,
    message: SendPayload,
    conversation: { conversationId: string; contact: string },
    messageId: string,
    status: 'sent' | 'failed',
    providerMessageIds: string[],
    error?: string,
  ): Promise<void> {
    const sentAt = now().toISOString();
    const stored = fitPayload(message.payload as Record<string, unknown>, RECORD_PAYLOAD_BYTES);
    const record: MessageRecord = {
      messageId,
      projectId: channel.projectId,
      channelId: channel.channelId,
      channelType: channel.type,
      integrationId: grant.integrationId,
      provider: channel.provider.kind,
      to: recipient(message),
      payload: stored.payload,
      ...(stored.truncated ? { payloadTruncated: true } : {}),
      status,
      ...(providerMessageIds.length ? { providerMessageIds } : {}),
      ...(error ? { error } : {}),
      sentAt,
      ...conversation,
      ...said(message),
      // A mail's Message-ID joins its conversation, so the contact's reply (In-Reply-To) finds the thread.
      ...(message.type === 'email' && providerMessageIds.length
        ? {
            threadIds: providerMessageIds.flatMap(messageIdsIn),
            mailRecipients: [...new Set(recipientContacts(channel, message).map((r) => r.contact))],
          }
        : {}),
    };
    const event = fitPayload(message.payload as Record<string, unknown>, EVENT_PAYLOAD_BYTES);
    const type: WebhookEventType = status === 'sent' ? 'message.sent' : 'message.failed';
    const prepared = await deps.events.prepare(
      {
        type,
        projectId: channel.projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: {
          messageId,
          conversationId: conversation.conversationId,
          integrationId: grant.integrationId,
          status,
          to: record.to,
          provider: channel.provider.kind,
          ...(providerMessageIds.length ? { providerMessageIds } : {}),
          ...(error ? { error } : {}),
          payload: event.payload,
          ...(event.truncated ? { payloadTruncated: true } : {}),
          sentAt,
        },
      },
      { key: `${status}:${messageId}`, at: now() },
    );
    // The record carries the event's mark: a crash after it leaves the event to the sweep.
    let recorded = true;
    try {
      await deps.messages.record(record, markOf(prepared));
    } catch (cause) {
      // The provider has sent it either way: the event still goes, unmarked (nothing to clear).
      recorded = false;
      deps.onBackgroundError('message record', cause);
    }
    failpoint('after-send-record');
    try {
      await deps.events.send(prepared.message);
      failpoint('after-publish');
      if (recorded) await deps.statuses.clearEvent(messageId, prepared.message.eventId);
    } catch (cause) {
      // Marked with the record: the sweep publishes it (same id) once the queue answers again.
      deps.onBackgroundError('event publish', cause);
    }
  };
}

/** What the status record keeps of what was said. */
function said(message: SendPayload): Pick<MessageRecord, 'text' | 'subject' | 'template'> {
  switch (message.type) {
    case 'whatsapp': {
      const t = message.payload.template;
      return t ? { template: { name: t.name, language: t.language } } : { text: message.payload.message };
    }
    case 'sms':
      return { text: message.payload.body };
    case 'email':
      return { subject: message.payload.subject, text: message.payload.text ?? message.payload.body };
  }
}

/**
 * The payload as stored or published, under `maxBytes` of JSON: the longest string fields are cut (with a mark)
 * until it fits. Small payloads, the common case, pass through untouched.
 */
export function fitPayload(
  payload: Record<string, unknown>,
  maxBytes: number,
): { payload: Record<string, unknown>; truncated: boolean } {
  let size = Buffer.byteLength(JSON.stringify(payload));
  if (size <= maxBytes) return { payload, truncated: false };
  const copy: Record<string, unknown> = { ...payload };
  const strings = Object.keys(copy)
    .filter((k) => typeof copy[k] === 'string')
    .sort((a, b) => (copy[b] as string).length - (copy[a] as string).length);
  for (const key of strings) {
    const value = copy[key] as string;
    const excess = size - maxBytes;
    const keep = Math.max(0, value.length - excess - 64);
    copy[key] = `${value.slice(0, keep)}…[truncated]`;
    size = Buffer.byteLength(JSON.stringify(copy));
    if (size <= maxBytes) return { payload: copy, truncated: true };
  }
  // Still too big (huge lists): keep only the small fields.
  const small = Object.fromEntries(Object.entries(copy).filter(([, v]) => typeof v !== 'object' || v === null));
  return { payload: small, truncated: true };
}
