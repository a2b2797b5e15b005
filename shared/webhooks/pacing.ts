import type { DeliveryJob } from './model.ts';
import { shardOf } from '../kernel/shards.ts';

/**
 * A webhook's `rateLimitPerSecond` (docs/reference/webhooks.md): attempts to it start at most that many times in any
 * sliding one-second interval, across every deliver worker and instance.
 *
 * Decision: spacing, not a bucket with bursts. A bucket of n that refills n per second lets 2n - 1 start within one
 * sliding second; starts spaced `(1000 + START_JITTER_ALLOWANCE_MS) / n` ms apart never put n + 1 in one second,
 * even when each start reaches the receiver up to that allowance late (the way from the worker to the receiver).
 *
 * Two conditional writes per attempt on one item per webhook (the pacer port), both shared by every worker:
 * - a reservation orders the waiting jobs: the next free start time, handed out `spacing` apart. A job whose start
 *   is under {@link IN_PROCESS_WAIT_MS} away waits for it in the worker (SQS delays count whole seconds, so finer
 *   waits cannot be left to the queue); a later one goes back on the queue with a delay, carrying its reserved
 *   start, and comes back about then;
 * - an admission at the moment of the start decides: it passes only when the last admitted start is at least
 *   `spacing` ago, and records this one. A worker that woke late, or a job the queue returned late, cannot crowd
 *   the next start. A job asks once the spacing from the lane's last start its instance knows of has passed;
 *   refused, it reads the lane's last admitted start and asks again once the spacing from it has passed (within
 *   {@link ADMISSION_PATIENCE_MS}), else it goes back on the queue with a new reservation.
 * Waiting is never an attempt and never fails a delivery.
 *
 * The limit is read from the webhook at most {@link LIMIT_CACHE_MS} old per worker instance, not from the snapshot
 * the fan-out put in the job (up to a minute old), so a change applies within seconds.
 *
 * A limit above {@link STARTS_PER_LANE} is split into lanes, one schedule each (a delivery keeps its lane, chosen
 * from its id): one item takes about 1,000 writes a second and every start writes its lane twice. The lanes' limits
 * add up to the webhook's, and each lane keeps the spacing rule, so no second holds more starts than the limit.
 *
 * A schedule that cannot be read or written (a throttled or failed write) holds the job back: it goes back on the
 * queue for a few seconds, not an attempt, never let through unpaced.
 */
export { MAX_WEBHOOK_RATE_PER_SECOND } from '../integrations/index.ts';
/** Measured: under a load average of 12 on 2 cores, 60 ms let 11 starts reach a receiver within one second at 10/s. */
export const START_JITTER_ALLOWANCE_MS = 150;
/**
 * A job whose reserved start is this close waits in the worker; further away it waits in the queue. A wait holds the
 * worker's batch, but SQS delays count whole seconds: shorter (250 ms) made jobs miss their starts and a webhook
 * paced at 10/s got 2.5/s under load (bench/history/2026-11-webhooks-recover-and-pacing.md).
 */
export const IN_PROCESS_WAIT_MS = 1_000;
/** How long a job whose start came keeps asking for admission in the worker before it goes back on the queue. */
export const ADMISSION_PATIENCE_MS = 1_000;
/** How old the webhook's rate limit a worker paces by may be (one GetItem per webhook and worker at most this often). */
export const LIMIT_CACHE_MS = 2_000;
/** SQS's longest message delay. */
const MAX_DELAY_SECONDS = 900;
/** Starts a second one lane's schedule takes: two writes each, half of what one item takes. */
export const STARTS_PER_LANE = 250;
/** A job whose schedule could not be reached waits this long, plus up to as much again, before it asks again. */
const UNREACHABLE_PACER_DELAY_SECONDS = 2;

/** How many lanes a limit is split into, and the limit of each (they add up to `perSecond`). */
export function lanesOf(perSecond: number): number[] {
  const lanes = Math.max(1, Math.ceil(perSecond / STARTS_PER_LANE));
  const base = Math.floor(perSecond / lanes);
  return Array.from({ length: lanes }, (_, lane) => base + (lane < perSecond % lanes ? 1 : 0));
}

/** Milliseconds between two starts for a limit of `perSecond`. */
export function startSpacingMs(perSecond: number): number {
  return (1000 + START_JITTER_ALLOWANCE_MS) / perSecond;
}

/** The shared schedule of each webhook's attempt starts, and where its limit is read. */
export interface WebhookPacer {
  /** The webhook's `rateLimitPerSecond` as stored now; null when it has none (or no longer exists). */
  limitOf(projectId: string, integrationId: string): Promise<number | null>;
  /**
   * Reserves the next start of a lane (0 when the limit has one), no earlier than `now` and at least `spacingMs`
   * after the lane's previous reservation, and returns it (epoch ms). Atomic across every caller.
   */
  reserve(projectId: string, integrationId: string, spacingMs: number, now: number, lane?: number): Promise<number>;
  /**
   * Admits a start at `now` on a lane when its last admitted start is at least `spacingMs` earlier (or none),
   * recording it; false otherwise. Atomic across every caller.
   */
  admit(projectId: string, integrationId: string, spacingMs: number, now: number, lane?: number): Promise<boolean>;
  /** A lane's last admitted start as stored now (epoch ms), or undefined when it has none. */
  lastAdmitted(projectId: string, integrationId: string, lane?: number): Promise<number | undefined>;
}

export type PacingDecision =
  | { go: true }
  /** Put the job back (not an attempt): it carries its reserved start. */
  | { go: false; job: DeliveryJob; delaySeconds: number };

export interface PacingDeps {
  pacer: WebhookPacer;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: (message: string, details: Record<string, unknown>) => void;
}

/** The pacing step of a delivery: `go` when the attempt may start now, or the job to put back on the queue. */
export function makePacing(deps: PacingDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = deps.random ?? Math.random;
  const limits = new Map<string, { limit: Promise<number | null>; readAt: number }>();
  /**
   * The latest admitted start this instance knows of per lane (its own admissions, its reads of `last`). A job whose
   * turn comes under `spacing` after it waits for the spacing before it asks: its admission would be refused. It is
   * never later than the lane's true last start, so waiting for it never delays a start the lane would admit.
   */
  const lastSeen = new Map<string, number>();
  const see = (lane: string, at: number | undefined) => {
    if (at === undefined || at <= (lastSeen.get(lane) ?? Number.NEGATIVE_INFINITY)) return;
    if (lastSeen.size > 10_000) lastSeen.clear();
    lastSeen.set(lane, at);
  };

  /**
   * The webhook's limit, read at most every {@link LIMIT_CACHE_MS}: the jobs of a batch that find it stale share one
   * read (each of them reading it was ~1 GetItem per batch at saturation); a failed read is not kept.
   */
  function limitOf(job: DeliveryJob): Promise<number | null> {
    const cached = limits.get(job.integrationId);
    const at = now();
    if (cached && at - cached.readAt < LIMIT_CACHE_MS) return cached.limit;
    if (limits.size > 10_000) limits.clear();
    const entry = { limit: deps.pacer.limitOf(job.projectId, job.integrationId), readAt: at };
    limits.set(job.integrationId, entry);
    entry.limit.catch(() => void (limits.get(job.integrationId) === entry && limits.delete(job.integrationId)));
    return entry.limit;
  }

  /** Back on the queue until about its reserved start (SQS delays are whole seconds; admission decides on return). */
  function holdBack(job: DeliveryJob, slot: number): PacingDecision {
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.floor((slot - now()) / 1000)));
    return { go: false, job: { ...job, pacedStartAt: slot }, delaySeconds };
  }

  /** The job's turn under its webhook's limit: its lane's reserved start, waited for, then admitted. */
  async function paceOrThrow(job: DeliveryJob): Promise<PacingDecision> {
    const limit = await limitOf(job);
    if (limit === null) return { go: true };
    const lanes = lanesOf(limit);
    const lane = lanes.length > 1 ? shardOf(job.deliveryId, lanes.length) : 0;
    const spacing = startSpacingMs(lanes[lane]!);
    const { projectId, integrationId } = job;
    const slot = job.pacedStartAt ?? (await deps.pacer.reserve(projectId, integrationId, spacing, now(), lane));
    const wait = slot - now();
    if (wait > IN_PROCESS_WAIT_MS) return holdBack(job, slot);
    if (wait > 0) await sleep(wait);
    const giveUpAt = now() + ADMISSION_PATIENCE_MS;
    const laneKey = `${integrationId}#${lane}`;
    const reserveAgain = async () => {
      const next = await deps.pacer.reserve(projectId, integrationId, spacing, now(), lane);
      return holdBack(job, Math.max(next, now() + 1000));
    };
    for (;;) {
      const turn = (lastSeen.get(laneKey) ?? Number.NEGATIVE_INFINITY) + spacing;
      if (turn > giveUpAt) return reserveAgain();
      if (turn > now()) await sleep(turn - now());
      const at = now();
      if (await deps.pacer.admit(projectId, integrationId, spacing, at, lane)) {
        see(laneKey, at);
        return { go: true };
      }
      // Refused: the lane's last start is under `spacing` ago. The next admission can pass at that start plus the
      // spacing, so the job waits exactly that long. Asking again on a fixed poll cost a write each time (a failed
      // conditional write takes a write unit), and a late admission pushed every later job of the lane: a webhook
      // paced at 5/s on a busy machine made 9 writes to its pace item a delivery, not 2
      // (bench/history/2026-12-suite-time-final21.md). The read, one per refusal, is a strongly consistent GetItem.
      const last = await deps.pacer.lastAdmitted(projectId, integrationId, lane);
      see(laneKey, last);
      const retryAt = last === undefined ? now() + Math.min(spacing / 2, 50) : last + spacing;
      if (retryAt > giveUpAt) return reserveAgain();
      await sleep(Math.max(1, retryAt - now()));
    }
  }

  return {
    async pace(job: DeliveryJob): Promise<PacingDecision> {
      try {
        return await paceOrThrow(job);
      } catch (error) {
        // Fails closed: without its schedule the job cannot know its turn, so it waits and asks again.
        deps.log?.('webhook pace unavailable; delivery held back', {
          deliveryId: job.deliveryId,
          error: String(error),
        });
        const { pacedStartAt: _reserved, ...unreserved } = job;
        const delaySeconds = UNREACHABLE_PACER_DELAY_SECONDS + Math.floor(random() * UNREACHABLE_PACER_DELAY_SECONDS);
        return { go: false, job: unreserved, delaySeconds };
      }
    },
  };
}

export type Pacing = ReturnType<typeof makePacing>;
