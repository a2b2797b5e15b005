/** Rate limit: the per-token GCRA bucket (60 a minute) and its port. */
export {
  admitted,
  gcraParams,
  type GcraParams,
  gcraStep,
  intervalMs,
  type RateDecision,
  type RateLimiter,
  refused,
} from './gcra.ts';
