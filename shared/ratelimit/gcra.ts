/**
 * The Bots API rate limit as the contract models it: a bucket of `limit` requests that refills one request every
 * `60 s / limit` (GCRA). State is one number, the theoretical arrival time (TAT). A request at `now` is admitted
 * when max(TAT, now) + interval <= now + window, and then TAT becomes max(TAT, now) + interval.
 * Over any N whole minutes this admits at most limit × (N + 1).
 */
export interface GcraParams {
  limit: number;
  /** Bucket span in ms: limit × interval. */
  windowMs: number;
}

export function gcraParams(limitPerMinute: number): GcraParams {
  return { limit: limitPerMinute, windowMs: 60_000 };
}

/** A limit of `perSecond` requests a second: a bucket of one second's worth, refilled continuously. */
export function perSecondParams(perSecond: number): GcraParams {
  return { limit: perSecond, windowMs: 1_000 };
}

export const intervalMs = (p: GcraParams) => p.windowMs / p.limit;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** Whole seconds until the next request would pass (when refused). */
  retryAfterSeconds?: number;
}

/** The pure GCRA step, used by the in-memory limiter and as the model the DynamoDB adapter is tested against. */
export function gcraStep(
  tat: number | undefined,
  now: number,
  p: GcraParams,
): { decision: RateDecision; tat: number | undefined } {
  const t = intervalMs(p);
  const base = tat === undefined || tat < now ? now : tat;
  const next = base + t;
  if (next - now <= p.windowMs) return { decision: admitted(next, now, p), tat: next };
  return { decision: refused(tat, now, p), tat };
}

export function admitted(newTat: number, now: number, p: GcraParams): RateDecision {
  const t = intervalMs(p);
  return {
    allowed: true,
    limit: p.limit,
    remaining: Math.max(0, Math.floor((now + p.windowMs - newTat) / t + 1e-9)),
    resetSeconds: Math.max(0, Math.ceil((newTat - now) / 1000)),
  };
}

/**
 * A refusal. When the stored TAT is unknown (the store could not return it), the bounds still give honest headers:
 * TAT never exceeds now + window, so the wait is at most one interval.
 */
export function refused(tat: number | undefined, now: number, p: GcraParams): RateDecision {
  const t = intervalMs(p);
  const knownTat = tat ?? now + p.windowMs;
  const waitMs = tat === undefined ? t : Math.max(1, knownTat + t - (now + p.windowMs));
  return {
    allowed: false,
    limit: p.limit,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil((knownTat - now) / 1000)),
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
  };
}

/**
 * A limit with its parameters fixed (the Bots API's per-token bucket). `admit` throws when the limit could not be
 * read or written: the caller refuses the request (503), never admits it unchecked.
 */
export interface RateLimiter {
  admit(key: string, now: number): Promise<RateDecision>;
}

/** Buckets of any parameters, each named by a key (a token, a project's sends): where the limits keep their state. */
export interface RateLimitStore {
  /** Throws when the bucket could not be read or written (refuse the request, never admit it unchecked). */
  admit(key: string, now: number, params: GcraParams): Promise<RateDecision>;
}
