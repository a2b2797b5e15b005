import type { DeferredStore } from './deferred.ts';
import { type AcceptDeferredDeps, enqueueSoon } from './accept-deferred.ts';

/** Entries one run enqueues at most (the next run goes on). */
const MAX_PER_RUN = 5000;
const MINUTE = 60_000;
/**
 * Where a run with no cursor yet (the service's first) starts: the cursor's own lag and a minute more. The sweeper
 * is deployed with the functions that write due entries and runs from then on, so nothing older can be waiting; each
 * minute looked back costs a Query of each of its partitions.
 */
export const FIRST_RUN_LOOK_BACK_MS = 2 * MINUTE;

export interface SweepDueDeps extends Pick<AcceptDeferredDeps, 'queue' | 'lookaheadMs' | 'onBackgroundError'> {
  store: Pick<DeferredStore, 'due' | 'removeDue' | 'sweepCursor' | 'setSweepCursor'>;
  now?: () => Date;
}

/**
 * The due sweep (every minute on AWS, every second or two locally): every due entry from the cursor's minute to the
 * lookahead is put on the outbound queue, delayed to its time, and removed. Entries are written for the future (a
 * scheduled send more than the lookahead away) and, briefly, for messages being enqueued at once (what a crash or an
 * outage left behind). The cursor stays a minute behind now, so an entry written late in a minute is still found.
 */
export function makeSweepDue(deps: SweepDueDeps) {
  const now = deps.now ?? (() => new Date());
  return async function sweepDue(): Promise<{ enqueued: number }> {
    const at = now().getTime();
    const cursor = (await deps.store.sweepCursor()) ?? at - FIRST_RUN_LOOK_BACK_MS;
    const entries = await deps.store.due(cursor, at + deps.lookaheadMs, MAX_PER_RUN);
    if (entries.length) await enqueueSoon(deps, entries, at);
    const behind = Math.floor(at / MINUTE) * MINUTE - MINUTE;
    if (entries.length < MAX_PER_RUN && behind > cursor) await deps.store.setSweepCursor(behind);
    return { enqueued: entries.length };
  };
}
