/**
 * When a failed delivery is tried again (docs/reference/webhooks.md): after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h, 8 attempts in all, each delay stretched by up to 20 % jitter so that receivers coming back from an outage are
 * not hit by every retry in the same second. `WEBHOOK_RETRY_SCHEDULE` replaces the delays (seconds, comma separated):
 * n delays give n + 1 attempts.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** Largest share of a delay added as jitter. */
export const RETRY_JITTER = 0.2;

export interface RetrySchedule {
  /** Delays between attempts, seconds: `delays[n - 1]` is the wait after attempt n. */
  readonly delays: readonly number[];
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
}

/**
 * Parses a schedule of delays ("5,300,1800": `WEBHOOK_RETRY_SCHEDULE`, `NOTICE_EMAIL_RETRY_SCHEDULE`); undefined or
 * blank gives `defaults` (the contract's delivery schedule unless said).
 */
export function parseRetrySchedule(
  text: string | undefined,
  defaults: readonly number[] = DEFAULT_RETRY_DELAYS_SECONDS,
): RetrySchedule {
  if (text === undefined || text.trim() === '') return { delays: defaults, maxAttempts: defaults.length + 1 };
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.some((d) => !Number.isFinite(d) || d < 0)) throw new Error(`Invalid retry schedule: ${text}`);
  return { delays, maxAttempts: delays.length + 1 };
}

/**
 * Seconds to wait after attempt number `attempt` (1-based) failed, jitter included; undefined when that was the
 * last attempt. Jitter only lengthens a delay (never retries earlier than the schedule says). `random` is in [0, 1).
 */
export function retryDelaySeconds(
  schedule: RetrySchedule,
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  if (attempt < 1 || attempt >= schedule.maxAttempts) return undefined;
  const base = schedule.delays[attempt - 1]!;
  return base * (1 + RETRY_JITTER * random());
}
