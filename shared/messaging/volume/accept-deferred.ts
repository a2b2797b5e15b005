import {
  delayUntil,
  type DeferredMessage,
  type DeferredStore,
  type DueEntry,
  MAX_QUEUE_DELAY_SECONDS,
  type OutboundJob,
  type OutboundQueue,
} from './deferred.ts';
import { type ChannelPacer, type Pace, paceSlots } from './pace.ts';

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
  /** The turns of messages queued at once on their channel's pace (without it, all are visible at once). */
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
 * Messages queued at once on a channel with `pace` (a batch's) take their turns in the channel's queue here, behind
 * what it has queued already (one write for the batch); their jobs carry them and become visible a second before them.
 * The worker then neither reserves (a write a group) nor finds a turn beyond its horizon and queues the job again (a
 * send, a receive and a read more a job). When acceptance only said where the jobs would fall and the worker reserved
 * their turns as they arrived, on a pointer of its own, the two drifted apart (the first reservation later than the
 * plan's start, each turn given back reserved again at the end), and every job of a drain arrived more than 2 s before
 * its reserved turn and was queued again. If the write fails, the jobs are visible at once and reserve as they arrive.
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
    // Not a permission (the slots decide when a message leaves): without it the jobs only reserve as they arrive.
    const start = await deps.pacer.plan(queued[0]!.channelId, queued.length, spacingMs, at).catch(() => undefined);
    if (!start) return undefined;
    return new Map<string, QueuePlace>(
      queued.map((m, i) => {
        const turn = { at: start.at + i * spacingMs, seq: start.seq + i };
        return [m.messageId, { visibleAt: turn.at - VISIBLE_AHEAD_MS, turn }];
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
