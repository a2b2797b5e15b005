import type { AttemptOutcome } from './sender.ts';

/**
 * A receiver's `Retry-After` on 429 and 503 (docs/reference/webhooks.md): the next attempt comes no sooner than it
 * asks, nor sooner than the retry schedule says. Seconds or an HTTP date; above 24 h counts as 24 h; anything that does
 * not parse (garbage, a negative number, a fraction) is ignored, so a receiver can never stall a delivery.
 */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** Status codes whose `Retry-After` is honoured. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Milliseconds the receiver asked to wait (0 for a date already past), capped at 24 h; undefined when unusable. */
export function parseRetryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000);
  // An HTTP date (IMF-fixdate, or the obsolete forms Date.parse also reads); a bare number was handled above.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}

/**
 * The wait before the next automatic attempt: the schedule's, lengthened to what the receiver asked for on a 429
 * or 503. Seconds.
 */
export function delayHonouringRetryAfter(scheduledSeconds: number, outcome: AttemptOutcome, now: number): number {
  if (outcome.kind !== 'http-error' || !RETRY_AFTER_STATUSES.has(outcome.statusCode)) return scheduledSeconds;
  const asked = parseRetryAfterMs(outcome.retryAfter, now);
  return asked === undefined ? scheduledSeconds : Math.max(scheduledSeconds, asked / 1000);
}
