import type { OutboxMark } from '../../events/index.ts';
import type { ChannelType, ProviderKind } from '../channel.ts';

/**
 * A message accepted now and sent later: a batch item waiting for its channel's pace (`queued`), or a send with
 * `sendAt` (`scheduled`). It lives on the message's own status item, so `GET /api/integration/messages/{id}` shows it
 * and the send that finally goes out overwrites it with its record. `sending` is the claim a worker takes just before
 * the charge and the provider call: a message found `sending` again was being sent when its worker died, and is
 * never sent a second time.
 */
export type DeferredStatus = 'queued' | 'scheduled' | 'sending' | 'canceled';

export interface DeferredMessage {
  messageId: string;
  projectId: string;
  channelId: string;
  integrationId: string;
  channelType: ChannelType;
  /** The channel's company and address, copied so its events need no channel read (a refusal's included). */
  companyId: number;
  channelAddress: string;
  provider: ProviderKind;
  status: DeferredStatus;
  /** Its conversation and contact (the first recipient), as a send would record them. */
  conversationId: string;
  contact: string;
  /** The recipient(s) as the body names them (shown by GET before it is sent). */
  to: string | string[];
  /** The send body as it came, without `sendAt`: checked again, charged and sent when it leaves. */
  body: Record<string, unknown>;
  createdAt: string;
  /** Scheduled: when it leaves (UTC ISO). */
  sendAt?: string;
  batchId?: string;
  /** After a provider's "too many requests": past this the message fails instead of waiting again. */
  retryUntil?: string;
  /** When a worker claimed it (`sending`). */
  claimedAt?: string;
  /** Provider "too many requests" answers so far (the backoff grows with them). */
  rateLimitedTimes?: number;
}

/**
 * What the outbound queue carries: the message, for a scheduled one the time it was due when enqueued, and the turn a
 * worker reserved for it on the channel's pace when that turn was too far off to wait for (the job was then queued
 * again to come back shortly before it).
 */
export interface OutboundJob {
  messageId: string;
  sendAt?: string;
  /** Its reserved instant (epoch ms) and sequence number on the channel's pace. */
  turn?: { at: number; seq: number };
}

/** A message waiting to be put on the outbound queue (due entries are what survives a crash before that). */
export interface DueEntry {
  messageId: string;
  /** When it may leave (UTC ISO): `sendAt`, or its acceptance for a batch item. */
  dueAt: string;
  sendAt?: string;
  /**
   * The stored entry that holds it with others due at the same instant (a batch's items queued at once share one,
   * named by its first message): removing any of them removes that one entry.
   */
  group?: string;
}

/** Where deferred messages are kept, claimed and moved, each with one conditional write on its own item. */
export interface DeferredStore {
  /**
   * Writes new messages with their due entries (one BatchWriteItem per 25 items), and answers those entries: one for
   * each scheduled message, one for all those queued at once.
   */
  create(messages: readonly DeferredMessage[]): Promise<DueEntry[]>;
  get(messageId: string): Promise<DeferredMessage | { messageId: string; status: string } | undefined>;
  /** Several messages read at once (one BatchGetItem per 100); missing ids are absent. */
  getMany(messageIds: readonly string[]): Promise<Map<string, DeferredMessage | { messageId: string; status: string }>>;
  /** The messages' statuses as they are now (missing ids are absent). */
  statuses(messageIds: readonly string[]): Promise<Map<string, string>>;
  /** `queued` or `scheduled` (due at `sendAt`) → `sending`; false when it is no longer so. */
  claim(messageId: string, expected: { status: 'queued' | 'scheduled'; sendAt?: string }): Promise<boolean>;
  /** `sending` → `queued` after a provider's "too many requests" (nothing was sent). */
  release(messageId: string, retryUntil: string, rateLimitedTimes: number): Promise<void>;
  /** `scheduled` → `canceled`; otherwise the status it has (undefined: no such message). */
  cancel(messageId: string, at: string): Promise<{ changed: boolean; status?: string }>;
  /** A scheduled message's new time, with its due entry; otherwise the status it has. */
  reschedule(messageId: string, sendAt: string, at: string): Promise<{ changed: boolean; status?: string }>;
  /**
   * Ends a deferred message `failed` with its event's mark (one conditional write from `from`), undefined when it
   * was no longer in one of those states.
   */
  fail(
    messageId: string,
    from: readonly DeferredStatus[],
    failure: { code: string; message: string; at: string },
    mark: OutboxMark,
  ): Promise<boolean>;
  /** Due entries from `fromMinute` to `until` (epoch ms), oldest first, at most `limit`. */
  due(fromMs: number, untilMs: number, limit: number): Promise<DueEntry[]>;
  removeDue(entries: readonly DueEntry[]): Promise<void>;
  /** Where the due sweep starts (epoch ms of a minute); undefined before the first sweep. */
  sweepCursor(): Promise<number | undefined>;
  setSweepCursor(minuteMs: number): Promise<void>;
}

/** The outbound queue: each job with its delay (whole seconds, at most SQS's 900). */
export interface OutboundQueue {
  enqueue(jobs: readonly { job: OutboundJob; delaySeconds: number }[]): Promise<void>;
}

/** Whether a record read back is a deferred message (not one already sent, failed or received). */
export function isDeferred(record: { status: string } | undefined): record is DeferredMessage {
  return (
    record !== undefined && ['queued', 'scheduled', 'sending', 'canceled'].includes(record.status) && 'body' in record
  );
}

/** SQS's longest delay, and how far ahead the due sweep enqueues (it runs every minute on AWS). */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** The delay that makes a job visible at `dueAt`, or a moment before (the worker waits out the rest). */
export function delayUntil(dueAt: string, now: number): number {
  return Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.floor((Date.parse(dueAt) - now) / 1000)));
}

/**
 * How far ahead the due sweep (every minute on AWS) puts messages on the queue, and how soon a message must be due
 * to be queued as it is accepted or moved: more than a sweep's interval, so none is queued late.
 */
export const DUE_LOOKAHEAD_MS = 180_000;
