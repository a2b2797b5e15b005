/** Rate limits: GCRA buckets (the Bots API's per token, a project's sends and events, a custom token's) and ports. */
export {
  admitted,
  gcraParams,
  type GcraParams,
  gcraStep,
  intervalMs,
  perSecondParams,
  type RateDecision,
  type RateLimiter,
  type RateLimitStore,
  refused,
} from './gcra.ts';
export { RateLimitedError } from './errors.ts';
export { ADMITS_PER_SHARD_PER_SECOND, shardCount } from './shards.ts';
export {
  makeTenantLimiter,
  type TenantLimiter,
  type TenantLimitKind,
  type TenantLimits,
  type TenantLimitsSource,
} from './tenant-limits.ts';
