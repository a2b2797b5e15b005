import type { CustomTokenLimitPorts } from '#shared/auth/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { Config } from '#shared/kernel/config.ts';
import { recentlyRead } from '#shared/kernel/recently-read.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { DynamoRateLimiter, DynamoRateLimitStore } from '#shared/ratelimit/adapters/dynamo-rate-limiter.ts';
import { makeTenantLimiter, perSecondParams, type TenantLimiter, type TenantLimits } from '#shared/ratelimit/index.ts';

/**
 * A project's own limits on its sends and reported events, on DynamoDB. The project's `limits` are read once per
 * PROJECT_LIMITS_CACHE_SECONDS per function instance: a busy sender costs its project item nothing, and an
 * operator's change applies within that time.
 */
export function tenantLimiterFromConfig(cfg: Config, table: DynamoTable): TenantLimiter {
  const projects = new DynamoProjectStore(table);
  const recent = recentlyRead<TenantLimits>({ ttlMs: cfg.PROJECT_LIMITS_CACHE_SECONDS * 1000 });
  return makeTenantLimiter({
    store: new DynamoRateLimitStore(table),
    limits: {
      limitsOf: (projectId) =>
        recent.get(projectId, async () => {
          const project = await projects.get(projectId);
          return project ? (project.limits ?? {}) : undefined;
        }),
    },
    defaults: { sendsPerSecond: cfg.PROJECT_SENDS_PER_SECOND, eventsPerSecond: cfg.PROJECT_EVENTS_PER_SECOND },
  });
}

/** A custom-token function's limits: the token's own, and (`sends`) the project's sends a second. */
export function customTokenLimitsFromConfig(
  cfg: Config,
  table: DynamoTable,
  options: { sends: boolean },
): CustomTokenLimitPorts {
  return {
    token: new DynamoRateLimiter(table, perSecondParams(cfg.CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND)),
    tokenPerSecond: cfg.CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND,
    ...(options.sends ? { sends: tenantLimiterFromConfig(cfg, table) } : {}),
  };
}
