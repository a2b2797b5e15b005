import type { Metrics } from '../kernel/metrics.ts';
import type { Platform } from '../kernel/platform.ts';
import { recentlyRead } from '../kernel/recently-read.ts';
import { DynamoRateLimiter, DynamoRateLimitStore } from './adapters/dynamo-rate-limiter.ts';
import { meteredRateLimiter } from './adapters/metered-rate-limiter.ts';
import { gcraParams, perSecondParams, type RateLimiter } from './gcra.ts';
import { ratelimitSettings } from './settings.ts';
import { makeTenantLimiter, type TenantLimiter, type TenantLimits } from './tenant-limits.ts';

/**
 * The Bots API's per-token limit (BOT_RATE_LIMIT_PER_MINUTE) on the table. Where the function publishes metrics,
 * the requests it refuses are counted.
 */
export function wireBotsApiLimiter(platform: Pick<Platform, 'table'> & { metrics?: Metrics }): RateLimiter {
  const limiter = new DynamoRateLimiter(platform.table, gcraParams(ratelimitSettings.read().BOT_RATE_LIMIT_PER_MINUTE));
  return platform.metrics ? meteredRateLimiter(limiter, platform.metrics) : limiter;
}

/**
 * A project's own limits on its sends and reported events, on the table. The project's `limits` come from the
 * projects area (`limitsOf`: undefined for a project that does not exist) and are read once per
 * PROJECT_LIMITS_CACHE_SECONDS per function instance: a busy sender costs its project item nothing, and an
 * operator's change applies within that time.
 */
export function wireTenantLimiter(
  platform: Pick<Platform, 'table'>,
  deps: { limitsOf(projectId: string): Promise<TenantLimits | undefined> },
): TenantLimiter {
  const settings = ratelimitSettings.read();
  const recent = recentlyRead<TenantLimits>({ ttlMs: settings.PROJECT_LIMITS_CACHE_SECONDS * 1000 });
  return makeTenantLimiter({
    store: new DynamoRateLimitStore(platform.table),
    limits: { limitsOf: (projectId) => recent.get(projectId, () => deps.limitsOf(projectId)) },
    defaults: {
      sendsPerSecond: settings.PROJECT_SENDS_PER_SECOND,
      eventsPerSecond: settings.PROJECT_EVENTS_PER_SECOND,
    },
  });
}

/** A custom token's own limit (CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND, every route it opens) on the table. */
export function wireCustomTokenLimiter(platform: Pick<Platform, 'table'>): {
  token: RateLimiter;
  tokenPerSecond: number;
} {
  const tokenPerSecond = ratelimitSettings.read().CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND;
  return { token: new DynamoRateLimiter(platform.table, perSecondParams(tokenPerSecond)), tokenPerSecond };
}
