import type { EventMessage } from './event-message.ts';
import { messageOfMark } from './outbox.ts';
import { forEachConcurrently } from '../kernel/shards.ts';

/** An item with marks of events not yet published. */
export interface StaleItem {
  key: { pk: string; sk: string };
  marks: { eventId: string; message: string }[];
  /** When the item's latest mark was written (epoch ms), when known. */
  writtenAt?: number;
}

/** One page of a shard: its items, and where the next page starts (absent: the shard is read to its end). */
export interface StalePage {
  items: StaleItem[];
  next?: Record<string, unknown>;
}

/** Where marks of events not yet published are found, and cleared once they are. */
export interface UnpublishedEvents {
  /** The shards marks are listed in; each is read on its own, oldest first. */
  readonly shards: readonly string[];
  /** Items of one shard with marks written before `before` (epoch ms), oldest first, at most `limit`. */
  stale(shard: string, before: number, limit: number, after?: Record<string, unknown>): Promise<StalePage>;
  clear(key: { pk: string; sk: string }, eventId: string): Promise<void>;
}

/**
 * Shards read at once, and marks cleared at once per shard (each clear is one conditional write): 40 calls in flight
 * at most, within the SDK's 50 sockets, and more than one Lambda's CPU can feed (its CPU, not DynamoDB, is the
 * bound: bench/event-sweep.ts).
 */
const SHARD_CONCURRENCY = 8;
const CLEAR_CONCURRENCY = 5;

/**
 * The event sweep (scheduled: every minute on AWS, every 5 s locally): publishes every event whose change was written
 * more than `sweepAfterMs` ago and is still marked unpublished, then clears its mark. It repairs a crash after a
 * synchronous route's write (a send, a sandbox report), which has no queue message to retry; queue-driven changes are
 * repaired sooner by their own retry. The same id and bytes go again: a receiver that got the first copy dedupes it.
 *
 * It reads the shards in parallel, each page after page, until the shard holds nothing older than the bound or
 * `budgetMs` has passed (the rest waits for the next run): a page's marks are published together (the queue
 * batches them, in order per conversation) and then cleared. A mark the queue refused stays for the next run, and
 * that shard stops here. Returns how many it published; throws, once every shard has stopped, when the queue
 * refused any (the run shows as failed).
 */
export function makeSweepUnpublishedEvents(deps: {
  outbox: UnpublishedEvents;
  queue: { send(message: EventMessage): Promise<void> };
  sweepAfterMs: number;
  log: { warn(message: string, extra?: Record<string, unknown>): void };
  now?: () => number;
  /** Items read per page. */
  batch?: number;
  /** How long one run keeps reading (default: a minute). */
  budgetMs?: number;
}) {
  const now = deps.now ?? Date.now;
  const batch = deps.batch ?? 100;

  /**
   * Publishes a page's marks, then clears those the queue took (a clear that fails leaves its mark to be published
   * again, same id); returns how many went out and the queue's refusals.
   */
  async function publishPage(items: StaleItem[], before: number): Promise<{ published: number; refused: unknown[] }> {
    // An item whose latest mark is recent may be in its change's own hands (publishing it now): left for a later run.
    const settled = items.filter((item) => item.writtenAt === undefined || item.writtenAt < before);
    const marks = settled.flatMap((item) => item.marks.map((mark) => ({ key: item.key, mark })));
    if (!marks.length) return { published: 0, refused: [] };
    deps.log.warn('publishing events their changes left unpublished', {
      count: marks.length,
      eventIds: marks.slice(0, 10).map((m) => m.mark.eventId),
    });
    // Sent together, in the page's order: the queue keeps one conversation's events in that order.
    const sent = await Promise.allSettled(marks.map(({ mark }) => deps.queue.send(messageOfMark(mark))));
    const taken = marks.filter((_, i) => sent[i]!.status === 'fulfilled');
    await forEachConcurrently(taken, CLEAR_CONCURRENCY, ({ key, mark }) => deps.outbox.clear(key, mark.eventId));
    return {
      published: taken.length,
      refused: sent.flatMap((s) => (s.status === 'rejected' ? [s.reason] : [])),
    };
  }

  return async function sweepUnpublishedEvents(budgetMs = deps.budgetMs ?? 60_000): Promise<number> {
    const startedAt = now();
    const before = startedAt - deps.sweepAfterMs;
    let published = 0;
    const refusals: unknown[] = [];
    await forEachConcurrently(deps.outbox.shards, SHARD_CONCURRENCY, async (shard) => {
      let after: Record<string, unknown> | undefined;
      do {
        if (now() - startedAt >= budgetMs) return;
        const page = await deps.outbox.stale(shard, before, batch, after);
        const out = await publishPage(page.items, before);
        published += out.published;
        if (out.refused.length) {
          refusals.push(...out.refused);
          return;
        }
        after = page.next;
      } while (after);
    });
    if (refusals.length) {
      throw new Error(`the events queue refused ${refusals.length} events: ${String(refusals[0])}`, {
        cause: refusals[0],
      });
    }
    return published;
  };
}
