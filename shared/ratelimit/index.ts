/**
 * Rate limits: GCRA buckets (the Bots API's per token, a project's sends and events, a custom token's), their
 * settings and wiring. The only way into the area from outside it.
 */
export { gcraParams, type RateDecision, type RateLimiter } from './gcra.ts';
export { RateLimitedError } from './errors.ts';
export { ADMITS_PER_SHARD_PER_SECOND, shardCount } from './shards.ts';
export type { TenantLimiter } from './tenant-limits.ts';
export { DynamoRateLimiter } from './adapters/dynamo-rate-limiter.ts';
export { meteredRateLimiter } from './adapters/metered-rate-limiter.ts';
export { ratelimitSettings } from './settings.ts';
export { wireBotsApiLimiter, wireCustomTokenLimiter, wireTenantLimiter } from './wiring.ts';
