import { delayUntil, type DeferredMessage, type DeferredStore, type DueEntry, type OutboundQueue } from './deferred.ts';

export interface AcceptDeferredDeps {
  store: Pick<DeferredStore, 'create' | 'removeDue'>;
  queue: OutboundQueue;
  /** How far ahead the due sweep looks: messages due sooner are enqueued here (it might not run again in time). */
  lookaheadMs: number;
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

/**
 * Accepts deferred messages so that nothing accepted is lost:
 * 1. each message is written with a due entry (a batch's in BatchWriteItems of 25, its items queued at once sharing
 *    one entry);
 * 2. those due within the sweep's lookahead are put on the outbound queue now, delayed to their time;
 * 3. their due entries are removed.
 * A crash or a queue outage after 1 leaves the due entries: the due sweep enqueues them (a job enqueued twice is
 * harmless, its message is claimed once). Only 1 failing fails the request.
 */
export function makeAcceptDeferred(deps: AcceptDeferredDeps) {
  const now = deps.now ?? (() => new Date());
  return async function acceptDeferred(messages: readonly DeferredMessage[]): Promise<void> {
    if (!messages.length) return;
    const entries = await deps.store.create(messages);
    await enqueueSoon(deps, entries, now().getTime());
  };
}

/** Puts on the queue the entries due within the lookahead and removes their due entries; failures are left to the sweep. */
export async function enqueueSoon(
  deps: Pick<AcceptDeferredDeps, 'queue' | 'lookaheadMs' | 'onBackgroundError'> & {
    store: Pick<AcceptDeferredDeps['store'], 'removeDue'>;
  },
  entries: readonly DueEntry[],
  nowMs: number,
): Promise<boolean> {
  const soon = entries.filter((e) => Date.parse(e.dueAt) <= nowMs + deps.lookaheadMs);
  if (!soon.length) return true;
  try {
    await deps.queue.enqueue(
      soon.map((e) => ({
        job: { messageId: e.messageId, ...(e.sendAt ? { sendAt: e.sendAt } : {}) },
        delaySeconds: delayUntil(e.dueAt, nowMs),
      })),
    );
    await deps.store.removeDue(soon);
    return true;
  } catch (cause) {
    deps.onBackgroundError('outbound enqueue (left to the due sweep)', cause);
    return false;
  }
}
