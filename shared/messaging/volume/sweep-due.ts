import type { DeferredStore } from './deferred.ts';
import { type AcceptDeferredDeps, enqueueSoon } from './accept-deferred.ts';

/** Entries one page of the sweep reads and enqueues; a full page is followed by the next while the run has time. */
export const SWEEP_PAGE = 5000;
/**
 * How long a run goes on taking pages (its function has 60 s): a backlog (an outage, a campaign scheduled for one
 * minute) drains in one run, not a page a minute, and a run always ends with time to spare.
 */
export const SWEEP_BUDGET_MS = 40_000;
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
  /** Defaults to {@link SWEEP_BUDGET_MS}. */
  budgetMs?: number;
}

/**
 * The due sweep (every minute on AWS, every second or two locally): every due entry from the cursor's minute to the
 * lookahead is put on the outbound queue, delayed to its time, and removed. Entries are written for the future (a
 * scheduled send more than the lookahead away) and, briefly, for messages being enqueued at once (what a crash or an
 * outage left behind). The cursor stays a minute behind now, so an entry written late in a minute is still found.
 */
export function makeSweepDue(deps: SweepDueDeps) {
  const now = deps.now ?? (() => new Date());
  const budgetMs = deps.budgetMs ?? SWEEP_BUDGET_MS;
  return async function sweepDue(): Promise<{ enqueued: number; notQueued?: number }> {
    const at = now().getTime();
    const cursor = (await deps.store.sweepCursor()) ?? at - FIRST_RUN_LOOK_BACK_MS;
    let enqueued = 0;
    // Each page's entries are removed once queued, so the next read starts past them. A page that could not be
    // queued stays for the next run (reading it again now would only fail again); the run says so, so that the local
    // schedule does not take it for a run that found nothing and wait longer before the next.
    for (;;) {
      const entries = await deps.store.due(cursor, at + deps.lookaheadMs, SWEEP_PAGE);
      if (entries.length && !(await enqueueSoon(deps, entries, at))) return { enqueued, notQueued: entries.length };
      enqueued += entries.length;
      if (entries.length < SWEEP_PAGE) break;
      if (now().getTime() - at >= budgetMs) return { enqueued };
    }
    const behind = Math.floor(at / MINUTE) * MINUTE - MINUTE;
    if (behind > cursor) await deps.store.setSweepCursor(behind);
    return { enqueued };
  };
}
