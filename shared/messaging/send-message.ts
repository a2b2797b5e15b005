import type { CustomTokenGrant } from '../auth/index.ts';
import { ValidationError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import type { ErrorDetail } from '../kernel/validation/issues.ts';
import { markOf, type EventPublisher, type WebhookEventType } from '../events/index.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { MessageStatusStore } from './message-status.ts';
import type { Channel, ChannelStore } from './channel.ts';
import {
  type ConversationStore,
  conversationIdOf,
  normaliseContact,
  type SendLookup,
  type SendLookupKeys,
  windowOf,
} from './conversation.ts';
import {
  ChannelNotFoundError,
  NoChannelCreditsError,
  ProviderFailedError,
  RecipientOptedOutError,
  WindowClosedError,
} from './errors.ts';
import type { MessageLog, MessageRecord } from './message.ts';
import { messageIdsIn } from './mail-threads.ts';
import { validateSendPayload, type SendPayload } from './payloads.ts';
import { ProviderError, type MessageProviders, type ProviderReceipt } from './providers.ts';

export interface SendMessageDeps {
  /** The channel and its contacts' conversation, suppression and thread items, in one read. */
  conversations: Pick<ConversationStore, 'lookupForSend'>;
  channels: Pick<ChannelStore, 'chargeCredit' | 'refundCredit'>;
  messages: Pick<MessageLog, 'record' | 'deliverToOutbox'>;
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
 * Sends one message on the channel bound to a custom token, in this order:
 * 1. the channel exists (404 CHANNEL_NOT_FOUND: deleted after the token was created);
 * 2. the payload fits the channel's type (400 VALIDATION_ERROR, every problem in `details`);
 * 3. no recipient opted out of the channel (409 RECIPIENT_OPTED_OUT, each one in `details`);
 * 4. WhatsApp: a free-form `message` only inside the contact's 24-hour window (409 WINDOW_CLOSED with `closedAt`);
 *    a `template` at any time;
 * 5. a metered channel has a credit (402 PROVIDER_ERROR, nothing charged) and 1 is taken with a conditional write;
 * 6. the channel's provider sends it (failure or timeout: 502 PROVIDER_ERROR, the credit given back); a sandbox
 *    channel's "provider" is its outbox entry (a busy store: 503, the credit given back, nothing reported);
 * 7. the message is recorded with its `message.sent` / `message.failed` marked in the same write, then the event is
 *    queued for the channel's webhooks and the mark cleared.
 * DynamoDB work per send: one BatchGetItem (the channel with the conversation, suppression and mail-thread items of
 * the addresses the body names: the checks of 3 and 4 cost no round trip of their own), the charge (metered channels
 * only), the record write, the mark's clearing. The token read happened in authentication.
 */
export function makeSendMessage(deps: SendMessageDeps) {
  const now = deps.now ?? (() => new Date());

  return async function sendMessage(
    grant: CustomTokenGrant,
    body: unknown,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const lookup = await deps.conversations.lookupForSend(grant.projectId, grant.channelId, sendLookupKeys(body));
    if (!lookup) throw new ChannelNotFoundError(grant.channelId, 'The channel of this token was deleted.');
    const { channel, message, conversation } = checkSend(lookup, body, now());

    // A paced send waits for its turn first (nothing is claimed or charged while it waits), then takes its message
    // for itself: from the claim on, whatever happens, it is never sent twice.
    if (options.beforeProvider) await options.beforeProvider();
    if (options.claim) await options.claim(channel);
    const metered = channel.credits !== undefined;
    if (
      metered &&
      (channel.credits! < 1 || !(await deps.channels.chargeCredit(channel.projectId, channel.channelId)))
    ) {
      throw new NoChannelCreditsError();
    }

    const messageId = options.messageId ?? newId('msg');
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
      // A paced send waits and tries again: "too many requests" sent nothing and records nothing yet.
      if (options.retryRateLimited && error instanceof ProviderError && error.rateLimited)
        throw new ProviderRateLimitedError(reason);
      const sentIds = error instanceof ProviderError ? error.sentProviderMessageIds : [];
      await finish(channel, grant, message, conversation, messageId, 'failed', sentIds, reason);
      throw new ProviderFailedError(`The ${channel.type} provider failed: ${reason}.`, error);
    }

    if (channel.provider.kind === 'sandbox') {
      try {
        // The sandbox's delivery: without its outbox entry nothing was "sent", so nothing is recorded or reported.
        await deps.messages.deliverToOutbox(channel.projectId, channel.channelId, {
          messageId,
          to: recipient(message),
          payload: fitPayload(message.payload as Record<string, unknown>, RECORD_PAYLOAD_BYTES).payload,
          sentAt: now().toISOString(),
        });
      } catch (error) {
        if (metered)
          await deps.channels
            .refundCredit(channel.projectId, channel.channelId)
            .catch((cause) => deps.onBackgroundError('credit refund', cause));
        throw new Error('The sandbox outbox could not be written', { cause: error });
      }
    }
    await finish(channel, grant, message, conversation, messageId, 'sent', receipt.providerMessageIds);
    return { messageId, status: 'sent', channel: { id: channel.channelId, type: channel.type } };
  };

  /** Records the message with its event's mark, then queues the event; neither failure changes what the provider did. */
  async function finish(
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
  }
}

export interface SendOptions {
  /** The message's id when it was given one before (a scheduled or batch send). */
  messageId?: string;
  /** Called once the checks passed, before the charge: a deferred send's claim on its message (throws if taken). */
  claim?: (channel: Channel) => Promise<void>;
  /** Awaited once the checks passed, before the claim and the charge (a paced send's turn). */
  beforeProvider?: () => Promise<void>;
  /** A provider's "too many requests" throws {@link ProviderRateLimitedError} (refunded, nothing recorded). */
  retryRateLimited?: boolean;
}

/** The provider said "too many requests": the credit was given back and nothing was recorded. */
export class ProviderRateLimitedError extends Error {
  override readonly name = 'ProviderRateLimitedError';
}

/**
 * The checks a send makes before it charges, on what it read with the channel: the payload fits the channel's type
 * (400), no recipient opted out (409 RECIPIENT_OPTED_OUT), a WhatsApp free-form message is inside the contact's
 * window (409 WINDOW_CLOSED). A batch runs them on each item; a deferred send runs them again when it leaves.
 */
export function checkSend(
  lookup: SendLookup,
  body: unknown,
  at: Date,
): { channel: Channel; message: SendPayload; conversation: { conversationId: string; contact: string } } {
  const channel = lookup.channel;
  const validation = validateSendPayload(channel.type, body);
  if (!validation.ok)
    throw new ValidationError(`The payload is invalid for a ${channel.type} channel.`, validation.details);
  const message = validation.value;
  const conversation = conversationOf(channel, message, lookup);
  const optedOut = optedOutRecipients(channel, message, lookup);
  if (optedOut.length) throw new RecipientOptedOutError(optedOut);
  if (message.type === 'whatsapp' && message.payload.template === undefined) {
    const window = windowOf(lookup.lastInbound.get(conversation.contact), at);
    if (!window.open) throw new WindowClosedError(window.closesAt);
  }
  return { channel, message, conversation };
}

/** The longest list of addresses a send may name (email: 50 `to` and 50 `bcc`). */
const MAX_LOOKUP_CONTACTS = 101;
/** Threads looked up per send: `inReplyTo` and the last `references` (the nearest ancestors). */
const MAX_LOOKUP_THREADS = 20;

/**
 * What the send reads with the channel, from the body as it came (its channel type is not known yet: the token says
 * only which channel): `number` (WhatsApp) for its window and suppression, `to` / `bcc` for suppressions, and the
 * Message-IDs a mail replies to. Keys of the wrong type for the channel are read for nothing, in the same request.
 */
export function sendLookupKeys(body: unknown): SendLookupKeys {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const strings = (value: unknown): string[] =>
    (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v.length <= 320);
  const windowContacts: string[] = [];
  const suppressionContacts = new Set<string>();
  for (const number of strings(input.number)) {
    const contact = normaliseContact('whatsapp', number);
    if (contact) {
      windowContacts.push(contact);
      suppressionContacts.add(contact);
    }
  }
  for (const address of [...strings(input.to), ...strings(input.bcc)]) {
    const contact = normaliseContact(address.includes('@') ? 'email' : 'sms', address);
    if (contact) suppressionContacts.add(contact);
  }
  const threadIds = [
    ...strings(input.inReplyTo).flatMap(messageIdsIn),
    ...strings(input.references).flatMap(messageIdsIn).reverse(),
  ].slice(0, MAX_LOOKUP_THREADS);
  return {
    windowContacts: windowContacts.slice(0, 1),
    suppressionContacts: [...suppressionContacts].slice(0, MAX_LOOKUP_CONTACTS),
    threadIds: [...new Set(threadIds)],
  };
}

/** Every address the message goes to, as the channel writes contacts. */
function recipientContacts(channel: Channel, message: SendPayload): { path: string; contact: string }[] {
  const out: { path: string; contact: string }[] = [];
  const add = (path: string, raw: string) => {
    const contact = normaliseContact(channel.type, raw);
    if (contact) out.push({ path, contact });
  };
  switch (message.type) {
    case 'whatsapp':
      add('number', message.payload.number);
      break;
    case 'sms':
      add('to', message.payload.to);
      break;
    case 'email':
      for (const field of ['to', 'bcc'] as const) {
        const list = message.payload[field] ?? [];
        for (const [i, address] of list.entries()) add(list.length > 1 ? `${field}.${i}` : field, address);
      }
      break;
  }
  return out;
}

/** Each recipient that opted out of the channel, as a `details[]` entry. */
function optedOutRecipients(channel: Channel, message: SendPayload, lookup: SendLookup): ErrorDetail[] {
  return recipientContacts(channel, message).flatMap(({ path, contact }) => {
    const suppression = lookup.suppressed.get(contact);
    if (!suppression) return [];
    const why = suppression.reason === 'bounce' ? 'mail to it bounced' : `it opted out (${suppression.reason})`;
    return [
      { path, message: `${contact} is suppressed on this channel: ${why} at ${suppression.at}`, code: 'opted_out' },
    ];
  });
}

/**
 * The send's conversation: the contact is the first recipient; a mail that replies to one this channel
 * knows (`inReplyTo`, then `references` nearest first) joins that mail's conversation.
 */
function conversationOf(
  channel: Channel,
  message: SendPayload,
  lookup: SendLookup,
): { conversationId: string; contact: string } {
  const first = recipientContacts(channel, message)[0];
  const raw = recipient(message);
  const contact = first?.contact ?? (Array.isArray(raw) ? raw[0]! : raw);
  if (message.type === 'email') {
    const replyTo = [
      ...(message.payload.inReplyTo ? messageIdsIn(message.payload.inReplyTo) : []),
      ...(message.payload.references ?? []).flatMap(messageIdsIn).reverse(),
    ];
    for (const id of replyTo) {
      const conversationId = lookup.threads.get(id);
      if (conversationId) return { conversationId, contact };
    }
  }
  return { conversationId: conversationIdOf(channel.channelId, contact), contact };
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
