import type { CustomTokenGrant } from '../auth/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import { markOf, type EventPublisher, type WebhookEventType } from '../events/index.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { MessageStatusStore } from './message-status.ts';
import type { Channel, ChannelStore } from './channel.ts';
import { ChannelNotFoundError, NoChannelCreditsError, ProviderFailedError } from './errors.ts';
import type { MessageLog, MessageRecord } from './message.ts';
import { validateSendPayload, type SendPayload } from './payloads.ts';
import { ProviderError, type MessageProviders, type ProviderReceipt } from './providers.ts';

export interface SendMessageDeps {
  channels: Pick<ChannelStore, 'get' | 'chargeCredit' | 'refundCredit'>;
  messages: Pick<MessageLog, 'record'>;
  /** Where the send's event mark is cleared once it is on the queue. */
  statuses: Pick<MessageStatusStore, 'clearEvent'>;
  providers: MessageProviders;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  /** Whole-send budget for the provider (each call also has its own deadline). */
  providerBudgetMs: number;
  /** Where failures that do not change the answer are reported (event queue down, record write failed). */
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

export interface SendResult {
  messageId: string;
  status: 'sent';
  channel: { id: string; type: string };
}

/** Records above this are cut (DynamoDB items hold at most 400 KB). */
const RECORD_PAYLOAD_BYTES = 300 * 1024;
/** Event payloads are kept small: the event says what was sent, the record keeps the rest. */
const EVENT_PAYLOAD_BYTES = 32 * 1024;

/**
 * Sends one message on the channel bound to a custom token, in the contract's order:
 * 1. the channel exists (404 CHANNEL_NOT_FOUND: deleted after the token was created);
 * 2. the payload fits the channel's type (400 VALIDATION_ERROR, every problem in `details`);
 * 3. a metered channel has a credit (402 PROVIDER_ERROR, nothing charged) and 1 is taken with a conditional write;
 * 4. the channel's provider sends it (failure or timeout: 502 PROVIDER_ERROR, the credit given back);
 * 5. the message is recorded (for the sandbox this is the outbox) with its `message.sent` / `message.failed` marked
 *    in the same write, then the event is queued for the channel's webhooks and the mark cleared.
 * DynamoDB work per send: the channel read, the charge (metered channels only), the record write, the mark's
 * clearing. The token read happened in authentication.
 */
export function makeSendMessage(deps: SendMessageDeps) {
  const now = deps.now ?? (() => new Date());

  return async function sendMessage(grant: CustomTokenGrant, body: unknown): Promise<SendResult> {
    const channel = await deps.channels.get(grant.projectId, grant.channelId);
    if (!channel) throw new ChannelNotFoundError(grant.channelId, 'The channel of this token was deleted.');

    const validation = validateSendPayload(channel.type, body);
    if (!validation.ok)
      throw new ValidationError(`The payload is invalid for a ${channel.type} channel.`, validation.details);
    const message = validation.value;

    const metered = channel.credits !== undefined;
    if (
      metered &&
      (channel.credits! < 1 || !(await deps.channels.chargeCredit(channel.projectId, channel.channelId)))
    ) {
      throw new NoChannelCreditsError();
    }

    const messageId = newId('msg');
    const startedAt = now();
    let receipt: ProviderReceipt;
    try {
      receipt = await deps.providers[channel.provider.kind].send({
        channel,
        message,
        deadline: startedAt.getTime() + deps.providerBudgetMs,
      });
    } catch (error) {
      const reason = error instanceof ProviderError ? error.message : 'The provider failed';
      if (metered)
        await deps.channels
          .refundCredit(channel.projectId, channel.channelId)
          .catch((cause) => deps.onBackgroundError('credit refund', cause));
      const sentIds = error instanceof ProviderError ? error.sentProviderMessageIds : [];
      await finish(channel, grant, message, messageId, 'failed', sentIds, reason);
      throw new ProviderFailedError(`The ${channel.type} provider failed: ${reason}.`, error);
    }

    const recorded = await finish(channel, grant, message, messageId, 'sent', receipt.providerMessageIds);
    // For the sandbox the record is the delivery: without it nothing was "sent".
    if (!recorded && channel.provider.kind === 'sandbox') {
      if (metered)
        await deps.channels
          .refundCredit(channel.projectId, channel.channelId)
          .catch((cause) => deps.onBackgroundError('credit refund', cause));
      throw new Error('The sandbox outbox could not be written');
    }
    return { messageId, status: 'sent', channel: { id: channel.channelId, type: channel.type } };
  };

  /** Records the message with its event's mark, then queues the event; neither failure changes what the provider did. */
  async function finish(
    channel: Channel,
    grant: CustomTokenGrant,
    message: SendPayload,
    messageId: string,
    status: 'sent' | 'failed',
    providerMessageIds: string[],
    error?: string,
  ): Promise<boolean> {
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
    // The record carries the event's mark (contract §15): a crash after it leaves the event to the sweep.
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
    return recorded;
  }
}

function recipient(message: SendPayload): string | string[] {
  switch (message.type) {
    case 'whatsapp':
      return message.payload.number;
    case 'email':
      return message.payload.to;
    case 'sms':
      return message.payload.to;
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
