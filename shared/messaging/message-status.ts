import type { OutboxMark } from '../events/index.ts';
import type { ChannelType, ProviderKind } from './channel.ts';
import { type MediaStore, mediaView, type StoredMedia } from './media.ts';

/**
 * A message's status as the customer sees it. Outbound messages move forward only:
 * sent < delivered < read, and `read` and `failed` are final. Inbound messages are `received` and stay so.
 */
export type OutboundStatus = 'sent' | 'delivered' | 'read' | 'failed';
/** Sent later: a batch item waiting for its turn (`sending` while it leaves: shown `queued`), a scheduled send. */
export type DeferredMessageStatus = 'queued' | 'scheduled' | 'sending' | 'canceled';
export type MessageStatus = OutboundStatus | 'received' | DeferredMessageStatus;

/** Order of outbound statuses: a report may only move a message to a higher rank; `read` and `failed` end it. */
export const STATUS_RANK: Record<OutboundStatus, number> = { sent: 0, delivered: 1, read: 2, failed: 3 };

/** Whether a message at `current` may move to `next` (forward only; nothing after `read` or `failed`). */
export function canAdvance(current: MessageStatus, next: OutboundStatus): boolean {
  if (!(current in STATUS_RANK) || current === 'read' || current === 'failed') return false;
  return STATUS_RANK[next] > STATUS_RANK[current as OutboundStatus];
}

export interface StatusChange {
  status: MessageStatus;
  at: string;
}

/** What `GET /api/integration/messages/{messageId}` answers from, one item per message. */
export interface MessageStatusRecord {
  messageId: string;
  projectId: string;
  channelId: string;
  channelType: ChannelType;
  direction: 'outbound' | 'inbound';
  provider: ProviderKind;
  status: MessageStatus;
  to: string | string[];
  from?: string;
  createdAt: string;
  history: StatusChange[];
  error?: string;
  /** A scheduled send's time. */
  sendAt?: string;
  /** The conversation; absent on messages recorded before conversations existed. */
  conversationId?: string;
  /** The contact the message was with, as the channel writes addresses (its conversation listing's key). */
  contact?: string;
  /** What was said, cut at {@link PREVIEW_CHARS} (`textTruncated`): the text, an SMS body, a mail's plain text. */
  text?: string;
  textTruncated?: boolean;
  /** Email: the subject. */
  subject?: string;
  /** WhatsApp: the template sent instead of a free-form message. */
  template?: { name: string; language: string };
  /** Inbound: the media received, stored (re-signed on every read) or with why not. */
  media?: StoredMedia[];
}

/** How much of a message's text its status record keeps (WhatsApp's own limit for a text message). */
export const PREVIEW_CHARS = 4096;

/** A text as the status record keeps it. */
export function previewOf(text: string | undefined): { text?: string; textTruncated?: boolean } {
  if (text === undefined || text === '') return {};
  return text.length > PREVIEW_CHARS ? { text: text.slice(0, PREVIEW_CHARS), textTruncated: true } : { text };
}

/** Where a provider's id points: the message it belongs to, on its channel. */
export interface ProviderIdTarget {
  messageId: string;
  projectId: string;
  channelId: string;
  /** Absent on lookups written before conversations existed. */
  conversationId?: string;
}

/** Message status records and the provider-id lookups that match receipts to them. */
export interface MessageStatusStore {
  get(messageId: string): Promise<MessageStatusRecord | undefined>;
  /**
   * The message a provider id was recorded for by a send of `channelId`, if any. Without a channel (SES's events name
   * none; its ids are SES's own, unique across its accounts): the message of the one channel that recorded it.
   */
  findByProviderId(
    provider: ProviderKind,
    providerMessageId: string,
    channelId?: string,
  ): Promise<ProviderIdTarget | undefined>;
  /**
   * Moves a message forward: one conditional write, applied only when the message is still below `status` and not
   * final. Returns the record after the change, or undefined when nothing changed (a retry, a stale or late report).
   */
  advance(
    messageId: string,
    change: { status: OutboundStatus; at: string; error?: string },
    /** The change's event, written with it (nothing accepted is lost). */
    mark: OutboxMark,
  ): Promise<MessageStatusRecord | undefined>;
  /**
   * Records an inbound message once, with its event's mark: false when a record with this id already exists (the same
   * report again).
   */
  recordInbound(record: MessageStatusRecord, mark: OutboxMark): Promise<boolean>;
  /** The events of this message's changes still marked unpublished (a crash came between the change and its publish). */
  /** Marks still pending on the message, each with when its item's latest mark was written (epoch ms). */
  pendingEvents(messageId: string): Promise<{ eventId: string; message: string; writtenAt?: number }[]>;
  /** The event is on the queue: its mark goes. */
  clearEvent(messageId: string, eventId: string): Promise<void>;
}

/**
 * A message as the message and conversation routes show it: status and history, its conversation,
 * what was said, and its media with URLs signed now (valid 7 days from this read).
 */
export async function messageView(record: MessageStatusRecord, media: Pick<MediaStore, 'url'>, now: Date) {
  return {
    messageId: record.messageId,
    ...(record.conversationId === undefined ? {} : { conversationId: record.conversationId }),
    direction: record.direction,
    status: record.status === 'sending' ? 'queued' : record.status,
    ...(record.sendAt === undefined ? {} : { sendAt: record.sendAt }),
    channel: { id: record.channelId, type: record.channelType },
    to: record.to,
    ...(record.from === undefined ? {} : { from: record.from }),
    ...(record.contact === undefined ? {} : { contact: record.contact }),
    ...(record.subject === undefined ? {} : { subject: record.subject }),
    ...(record.text === undefined ? {} : { text: record.text }),
    ...(record.textTruncated ? { textTruncated: true } : {}),
    ...(record.template === undefined ? {} : { template: record.template }),
    ...(record.media?.length ? { media: await Promise.all(record.media.map((m) => mediaView(m, media, now))) } : {}),
    createdAt: record.createdAt,
    history: record.history,
    ...(record.error === undefined ? {} : { error: record.error }),
  };
}

/** The answer of `GET /api/integration/messages/{messageId}`: `success` and the message. */
export async function messageStatusView(record: MessageStatusRecord, media: Pick<MediaStore, 'url'>, now: Date) {
  return { success: true, ...(await messageView(record, media, now)) };
}
