import type { EventMessage } from './event-message.ts';
import { messageOfMark } from './outbox.ts';

/** Where marks of events not yet published are found, and cleared once they are. */
export interface UnpublishedEvents {
  /** Items with marks written before `before` (epoch ms), oldest first, at most `limit`. */
  stale(
    before: number,
    limit: number,
  ): Promise<{ key: { pk: string; sk: string }; marks: { eventId: string; message: string }[] }[]>;
  clear(key: { pk: string; sk: string }, eventId: string): Promise<void>;
}

/**
 * The event sweep (scheduled: every minute on AWS, every 5 s locally): publishes every event whose change was written
 * more than `sweepAfterMs` ago and is still marked unpublished, then clears its mark. It repairs a crash after a
 * synchronous route's write (a send, a sandbox report), which has no queue message to retry; queue-driven changes are
 * repaired sooner by their own retry. The same id and bytes go again: a receiver that got the first copy dedupes it.
 * Returns how many it published.
 */
export function makeSweepUnpublishedEvents(deps: {
  outbox: UnpublishedEvents;
  queue: { send(message: EventMessage): Promise<void> };
  sweepAfterMs: number;
  log: { warn(message: string, extra?: Record<string, unknown>): void };
  now?: () => number;
  /** Items read per pass. */
  batch?: number;
}) {
  const now = deps.now ?? Date.now;
  return async function sweepUnpublishedEvents(): Promise<number> {
    const items = await deps.outbox.stale(now() - deps.sweepAfterMs, deps.batch ?? 100);
    let published = 0;
    for (const item of items) {
      for (const mark of item.marks) {
        deps.log.warn('publishing an event its change left unpublished', { eventId: mark.eventId });
        await deps.queue.send(messageOfMark(mark));
        await deps.outbox.clear(item.key, mark.eventId);
        published++;
      }
    }
    return published;
  };
}
