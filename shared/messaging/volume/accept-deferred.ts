import {
  delayUntil,
  type DeferredMessage,
  type DeferredStore,
  type DueEntry,
  MAX_QUEUE_DELAY_SECONDS,
  type OutboundJob,
  type OutboundQueue,
} from './deferred.ts';
import { type ChannelPacer, type Pace, paceSlots, RESERVE_AHEAD_MS } from './pace.ts';

/** How long before its turn a job is made visible (the worker waits up to 2 s for a turn). */
const VISIBLE_AHEAD_MS = 1_000;

/** Where a queued message stands in its channel's queue: when its job becomes visible, and its turn if reserved. */
export interface QueuePlace {
  visibleAt: number;
  turn?: OutboundJob['turn'];
}

export interface AcceptDeferredDeps {
  store: Pick<DeferredStore, 'create' | 'removeDue'>;
  queue: OutboundQueue;
  /** How far ahead the due sweep looks: messages due sooner are enqueued here (it might not run again in time). */
  lookaheadMs: number;
  onBackgroundError: (what: string, cause: unknown) => void;
  /** Reserves the turns of messages queued at once on their channel's pace (without it, all are visible at once). */
  pacer?: Pick<ChannelPacer, 'reserve'>;
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
 * Messages queued at once on a channel with `pace` (a batch's) reserve their turns on the channel's pace here, behind
 * what the channel has queued already (one write for the batch), and their jobs carry them and become visible a second
 * before them: the worker then neither reserves (a write a group) nor finds a turn beyond its horizon and queues the job
 * again (a send, a receive and a read more a job). When the worker reserved turns as jobs arrived and acceptance only
 * planned where they would fall, the two drifted apart (the first reservation later than the plan's start, turns given
 * back and reserved again at the end), and every job of a drain arrived more than 2 s before its reserved turn and was
 * queued again. A reservation that fails or lies beyond ten minutes leaves the jobs to reserve as they arrive.
 */
export function makeAcceptDeferred(deps: AcceptDeferredDeps) {
  const now = deps.now ?? (() => new Date());
  return async function acceptDeferred(messages: readonly DeferredMessage[], pace?: Pace): Promise<void> {
    if (!messages.length) return;
    const entries = await deps.store.create(messages);
    const at = now().getTime();
    await enqueueSoon(deps, entries, at, await placesOf(messages, pace, at));
  };

  /** Each queued message's turn and when its job becomes visible (epoch ms), from its place in the channel's queue. */
  async function placesOf(messages: readonly DeferredMessage[], pace: Pace | undefined, at: number) {
    const queued = messages.filter((m) => !m.sendAt);
    if (!pace || !deps.pacer || !queued.length) return undefined;
    const { spacingMs } = paceSlots(pace.perSecond);
    // Not a permission (the slots decide when a message leaves): a failed reservation only costs the jobs theirs later.
    const start = await deps.pacer
      .reserve(queued[0]!.channelId, queued.length, spacingMs, at, RESERVE_AHEAD_MS)
      .catch(() => ({ later: at }));
    return new Map<string, QueuePlace>(
      queued.map((m, i) => {
        const turnAt = ('at' in start ? start.at : start.later) + i * spacingMs;
        const place: QueuePlace = { visibleAt: turnAt - VISIBLE_AHEAD_MS };
        if ('at' in start) place.turn = { at: turnAt, seq: start.seq + i };
        return [m.messageId, place];
      }),
    );
  }
}

/** Puts on the queue the entries due within the lookahead and removes their due entries; failures are left to the sweep. */
export async function enqueueSoon(
  deps: Pick<AcceptDeferredDeps, 'queue' | 'lookaheadMs' | 'onBackgroundError'> & {
    store: Pick<AcceptDeferredDeps['store'], 'removeDue'>;
  },
  entries: readonly DueEntry[],
  nowMs: number,
  /** Some messages' places in their channel's queue: a later visibility, and the turn their job carries. */
  places?: ReadonlyMap<string, QueuePlace>,
): Promise<boolean> {
  const soon = entries.filter((e) => Date.parse(e.dueAt) <= nowMs + deps.lookaheadMs);
  if (!soon.length) return true;
  const delayOf = (e: DueEntry) => {
    const own = delayUntil(e.dueAt, nowMs);
    const place = places?.get(e.messageId);
    return place === undefined
      ? own
      : Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(own, Math.floor((place.visibleAt - nowMs) / 1000)));
  };
  try {
    await deps.queue.enqueue(
      soon.map((e) => ({
        job: {
          messageId: e.messageId,
          ...(e.sendAt ? { sendAt: e.sendAt } : {}),
          ...(places?.get(e.messageId)?.turn ? { turn: places.get(e.messageId)!.turn! } : {}),
        },
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
