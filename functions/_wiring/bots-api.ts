import { DynamoRateLimiter } from '#shared/ratelimit/adapters/dynamo-rate-limiter.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { type BotsApiAuthPorts, DynamoTokenStore } from '#shared/auth/index.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { gcraParams } from '#shared/ratelimit/gcra.ts';
import { meteredRateLimiter } from './metered.ts';

/**
 * The Bots API's auth and rate limit on DynamoDB: what every `/api/v1/ai/*` function hands `botsApiFunction`. With
 * `metrics`, the requests the rate limit refuses are counted.
 */
export function botsApiAuthFromConfig(cfg: Config, table: DynamoTable, metrics?: Metrics): BotsApiAuthPorts {
  const limiter = new DynamoRateLimiter(table, gcraParams(cfg.BOT_RATE_LIMIT_PER_MINUTE));
  return {
    tokens: new DynamoTokenStore(table),
    limiter: metrics ? meteredRateLimiter(limiter, metrics) : limiter,
  };
}
