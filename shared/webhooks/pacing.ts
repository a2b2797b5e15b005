import type { DeliveryJob } from './model.ts';

/**
 * A webhook's `rateLimitPerSecond` (contract section 11): attempts to it start at most that many times in any
 * sliding one-second interval, across every deliver worker and instance.
 *
 * Decision: spacing, not a bucket with bursts. A bucket of n that refills n per second lets 2n - 1 start within one
 * sliding second; starts spaced `(1000 + START_JITTER_ALLOWANCE_MS) / n` ms apart never put n + 1 in one second,
 * even when each start reaches the receiver up to that allowance late (a worker's timer, the network).
 *
 * The spacing is kept in one item per webhook (the pacer port): each attempt reserves the next free start time with
 * one conditional write. A job whose start is under {@link IN_PROCESS_WAIT_MS} away waits for it in the worker (SQS
 * delays count whole seconds, so finer waits cannot be left to the queue); a later one goes back on the queue with
 * a delay, carrying its reserved start, and comes back shortly before it. A job back too late for its start (the
 * queue was slow) reserves again. Waiting is never an attempt and never fails a delivery.
 *
 * The limit is read from the webhook at most {@link LIMIT_CACHE_MS} old per worker instance, not from the snapshot
 * the fan-out put in the job (up to a minute old), so a change applies within seconds.
 */
export const MAX_WEBHOOK_RATE_PER_SECOND = 10_000;
export const START_JITTER_ALLOWANCE_MS = 60;
/** A job whose reserved start is this close waits in the worker; further away it waits in the queue. */
export const IN_PROCESS_WAIT_MS = 1_000;
/**
 * A job back from the queue this late after its reserved start still takes it; later, it reserves again. Part of
 * {@link START_JITTER_ALLOWANCE_MS}: the rest (40 ms) covers the way to the receiver.
 */
export const LATE_START_MS = 20;
const LIMIT_CACHE_MS = 2_000;
/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;

/** Milliseconds between two starts for a limit of `perSecond`. */
export function startSpacingMs(perSecond: number): number {
  return (1000 + START_JITTER_ALLOWANCE_MS) / perSecond;
}

/** The shared schedule of each webhook's attempt starts, and where its limit is read. */
export interface WebhookPacer {
  /** The webhook's `rateLimitPerSecond` as stored now; null when it has none (or no longer exists). */
  limitOf(projectId: string, integrationId: string): Promise<number | null>;
  /**
   * Reserves the next start, no earlier than `now` and at least `spacingMs` after the previous reservation, and
   * returns it (epoch ms). Atomic across every caller.
   */
  reserve(projectId: string, integrationId: string, spacingMs: number, now: number): Promise<number>;
}

export type PacingDecision =
  | { go: true }
  /** Put the job back (not an attempt): it carries its reserved start. */
  | { go: false; job: DeliveryJob; delaySeconds: number };

export interface PacingDeps {
  pacer: WebhookPacer;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The pacing step of a delivery: `go` when the attempt may start now, or the job to put back on the queue. */
export function makePacing(deps: PacingDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const limits = new Map<string, { limit: number | null; readAt: number }>();

  async function limitOf(job: DeliveryJob): Promise<number | null> {
    const cached = limits.get(job.integrationId);
    const at = now();
    if (cached && at - cached.readAt < LIMIT_CACHE_MS) return cached.limit;
    const limit = await deps.pacer.limitOf(job.projectId, job.integrationId);
    if (limits.size > 10_000) limits.clear();
    limits.set(job.integrationId, { limit, readAt: at });
    return limit;
  }

  /** Back on the queue until shortly before its reserved start (up to a second early: the rest is waited here). */
  function holdBack(job: DeliveryJob, slot: number): PacingDecision {
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.floor((slot - now()) / 1000)));
    return { go: false, job: { ...job, pacedStartAt: slot }, delaySeconds };
  }

  return {
    async pace(job: DeliveryJob): Promise<PacingDecision> {
      const limit = await limitOf(job);
      if (limit === null) return { go: true };
      const reserve = () => deps.pacer.reserve(job.projectId, job.integrationId, startSpacingMs(limit), now());
      const kept = job.pacedStartAt !== undefined && now() <= job.pacedStartAt + LATE_START_MS;
      let slot = kept ? job.pacedStartAt! : await reserve();
      for (let round = 0; ; round++) {
        const wait = slot - now();
        if (wait > IN_PROCESS_WAIT_MS) return holdBack(job, slot);
        if (wait > 0) await sleep(wait);
        if (now() <= slot + LATE_START_MS) return { go: true };
        // Woke too late for its start (a busy worker): starting now could crowd the next start; take a new one.
        if (round >= 2) return { go: false, job: { ...job, pacedStartAt: undefined }, delaySeconds: 1 };
        slot = await reserve();
      }
    },
  };
}

export type Pacing = ReturnType<typeof makePacing>;
