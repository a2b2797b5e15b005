import { metricNames } from '../../contract/metrics.ts';
import type { Metrics } from '../../kernel/metrics.ts';
import type { RateLimiter } from '../gcra.ts';

/** Requests the per-token rate limit refused: the limiter it wraps, plus one count per refusal. */
export function meteredRateLimiter(limiter: RateLimiter, metrics: Metrics): RateLimiter {
  return {
    async admit(key, now) {
      const decision = await limiter.admit(key, now);
      if (!decision.allowed) metrics.count(metricNames.rateLimitRejections);
      return decision;
    },
  };
}
