import {
  delayUntil,
  type DeferredMessage,
  type DeferredStore,
  type DueEntry,
  MAX_QUEUE_DELAY_SECONDS,
  type OutboundQueue,
} from './deferred.ts';
import { type ChannelPacer, type Pace, paceSlots } from './pace.ts';

/** How long before its place in the channel's queue a job is made visible (the worker plans 2 s ahead). */
const VISIBLE_AHEAD_MS = 1_000;

export interface AcceptDeferredDeps {
  store: Pick<DeferredStore, 'create' | 'removeDue'>;
  queue: OutboundQueue;
  /** How far ahead the due sweep looks: messages due sooner are enqueued here (it might not run again in time). */
  lookaheadMs: number;
  onBackgroundError: (what: string, cause: unknown) => void;
  /** Where messages queued at once take their place in their channel's queue (without it, all are visible at once). */
  pacer?: Pick<ChannelPacer, 'plan'>;
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
 * Messages queued at once on a channel with `pace` (a batch's) are made visible about when their turn comes, behind
 * what the channel has queued already, not all at once: the worker would otherwise take every job, find most beyond
 * its horizon and put them back, again and again until their turn (a receive, a read, a reservation and a visibility
 * change per job and round: as much work as sending it, at 10,000 queued).
 */
export function makeAcceptDeferred(deps: AcceptDeferredDeps) {
  const now = deps.now ?? (() => new Date());
  return async function acceptDeferred(messages: readonly DeferredMessage[], pace?: Pace): Promise<void> {
    if (!messages.length) return;
    const entries = await deps.store.create(messages);
    const at = now().getTime();
    await enqueueSoon(deps, entries, at, await visibleAt(messages, pace, at));
  };

  /** When each queued message's job should become visible (epoch ms), from its place in the channel's queue. */
  async function visibleAt(messages: readonly DeferredMessage[], pace: Pace | undefined, at: number) {
    const queued = messages.filter((m) => !m.sendAt);
    if (!pace || !deps.pacer || !queued.length) return undefined;
    const { spacingMs } = paceSlots(pace.perSecond);
    // A hint only: without it every job is visible at once, which sends the same, at a higher cost.
    const start = await deps.pacer.plan(queued[0]!.channelId, queued.length, spacingMs, at).catch(() => at);
    return new Map(queued.map((m, i) => [m.messageId, start + i * spacingMs - VISIBLE_AHEAD_MS]));
  }
}

/** Puts on the queue the entries due within the lookahead and removes their due entries; failures are left to the sweep. */
export async function enqueueSoon(
  deps: Pick<AcceptDeferredDeps, 'queue' | 'lookaheadMs' | 'onBackgroundError'> & {
    store: Pick<AcceptDeferredDeps['store'], 'removeDue'>;
  },
  entries: readonly DueEntry[],
  nowMs: number,
  /** Later visibility for some messages (their place in their channel's queue), epoch ms. */
  visible?: ReadonlyMap<string, number>,
): Promise<boolean> {
  const soon = entries.filter((e) => Date.parse(e.dueAt) <= nowMs + deps.lookaheadMs);
  if (!soon.length) return true;
  const delayOf = (e: DueEntry) => {
    const own = delayUntil(e.dueAt, nowMs);
    const place = visible?.get(e.messageId);
    return place === undefined
      ? own
      : Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(own, Math.floor((place - nowMs) / 1000)));
  };
  try {
    await deps.queue.enqueue(
      soon.map((e) => ({
        job: { messageId: e.messageId, ...(e.sendAt ? { sendAt: e.sendAt } : {}) },
        delaySeconds: delayOf(e),
      })),
    );
    await deps.store.removeDue(soon);
    return true;
  } catch (cause) {
    deps.onBackgroundError('outbound enqueue (left to the due sweep)', cause);
    return false;
  }
}
