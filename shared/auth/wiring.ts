import type { Metrics } from '../kernel/metrics.ts';
import type { Platform } from '../kernel/platform.ts';
import { type TenantLimiter, wireBotsApiLimiter, wireCustomTokenLimiter } from '../ratelimit/index.ts';
import { DynamoTokenStore } from './adapters/dynamo-token-store.ts';
import type { BotsApiAuthPorts, CustomTokenAuthPorts } from './api/presets.ts';

/**
 * The Bots API's auth and rate limit on the deployment's table: what every `/api/v1/ai/*` function hands
 * `botsApiFunction`. With `metrics`, the requests the rate limit refuses are counted.
 */
export function wireBotsApiAuth(platform: Pick<Platform, 'table'> & { metrics?: Metrics }): BotsApiAuthPorts {
  const { table, metrics } = platform;
  return { tokens: new DynamoTokenStore(table), limiter: wireBotsApiLimiter({ table, metrics }) };
}

/**
 * A custom-token function's auth on the deployment's table: the token store and the token's own limit; on the send
 * routes, `sends` too (the project's sends a second, read from the project: the projects area builds it).
 */
export function wireCustomTokenAuth(
  platform: Pick<Platform, 'table'>,
  deps: { sends?: TenantLimiter } = {},
): CustomTokenAuthPorts {
  const { table } = platform;
  return {
    tokens: new DynamoTokenStore(table),
    limits: { ...wireCustomTokenLimiter({ table }), ...(deps.sends ? { sends: deps.sends } : {}) },
  };
}
