/**
 * Hourly counters of a webhook's delivery attempts, for the console's health chart: attempts succeeded and failed,
 * and a latency histogram from which the hour's median is read. Counters, not a scan of the deliveries: a deliver
 * batch folds its attempts per webhook and hour ({@link foldAttempts}) and adds each fold with one atomic update, so
 * an attempt costs its delivery write and a share of one counter write (one write per attempt would double the
 * delivery writes at saturation).
 */

/**
 * Upper edges (ms) of the latency buckets; the last bucket holds everything slower (the sender gives up at 15 s).
 * Roughly logarithmic: the median is told within a factor of about two, which is what a chart can show anyway.
 */
export const LATENCY_BUCKET_EDGES_MS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 15_000] as const;
export const LATENCY_BUCKETS = LATENCY_BUCKET_EDGES_MS.length + 1;

/** The bucket an attempt of `durationMs` counts in. */
export function latencyBucket(durationMs: number): number {
  const index = LATENCY_BUCKET_EDGES_MS.findIndex((edge) => durationMs <= edge);
  return index === -1 ? LATENCY_BUCKET_EDGES_MS.length : index;
}

/**
 * The median read from a histogram: the upper edge of the bucket holding the middle attempt (the lower middle one
 * for an even count), so "median ≤ this". The overflow bucket reports the last edge. Null without attempts.
 */
export function medianFromBuckets(counts: readonly number[]): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const middle = Math.ceil(total / 2);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen >= middle) return LATENCY_BUCKET_EDGES_MS[Math.min(i, LATENCY_BUCKET_EDGES_MS.length - 1)]!;
  }
  return null;
}

/** The UTC hour of `at` as a sortable label: `2026-11-24T06`. */
export function hourLabel(at: number): string {
  return new Date(at).toISOString().slice(0, 13);
}

/** One hour's counters as stored. */
export interface AttemptHour {
  hour: string;
  succeeded: number;
  failed: number;
  /** Attempts per latency bucket (index as {@link latencyBucket}). */
  latencyBuckets: number[];
}

/** One attempt as the counters take it. */
export interface CountedAttempt {
  projectId: string;
  integrationId: string;
  at: number;
  succeeded: boolean;
  durationMs: number;
}

/** What one counter update adds to one webhook's hour. */
export interface AttemptFold {
  projectId: string;
  integrationId: string;
  hour: string;
  succeeded: number;
  failed: number;
  /** Attempts per latency bucket (index as {@link latencyBucket}); zeros left out. */
  latencyBuckets: Map<number, number>;
  /** The latest attempt folded (epoch ms): the counters' retention runs from it. */
  lastAt: number;
}

/** Attempts folded per webhook and hour: what a batch adds to the counters, one update per entry. */
export function foldAttempts(attempts: readonly CountedAttempt[]): AttemptFold[] {
  const folds = new Map<string, AttemptFold>();
  for (const a of attempts) {
    const hour = hourLabel(a.at);
    const key = `${a.projectId}\u0000${a.integrationId}\u0000${hour}`;
    let fold = folds.get(key);
    if (!fold) {
      fold = {
        projectId: a.projectId,
        integrationId: a.integrationId,
        hour,
        succeeded: 0,
        failed: 0,
        latencyBuckets: new Map(),
        lastAt: a.at,
      };
      folds.set(key, fold);
    }
    if (a.succeeded) fold.succeeded++;
    else fold.failed++;
    const bucket = latencyBucket(a.durationMs);
    fold.latencyBuckets.set(bucket, (fold.latencyBuckets.get(bucket) ?? 0) + 1);
    fold.lastAt = Math.max(fold.lastAt, a.at);
  }
  return [...folds.values()];
}

/** Where the hourly counters live. */
export interface WebhookAttemptStats {
  /** Adds a batch's attempts to their hours: one atomic update (no read) per webhook and hour. */
  add(attempts: readonly CountedAttempt[]): Promise<void>;
  /** The hours between `fromHour` and `toHour` (labels, inclusive) that had attempts, oldest first. */
  hours(projectId: string, integrationId: string, fromHour: string, toHour: string): Promise<AttemptHour[]>;
}
