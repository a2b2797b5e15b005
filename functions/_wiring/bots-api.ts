import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { type BotsApiAuthPorts, DynamoTokenStore } from '#shared/auth/index.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { wireBotsApiLimiter } from '#shared/ratelimit/index.ts';

/**
 * The Bots API's auth and rate limit on DynamoDB: what every `/api/v1/ai/*` function hands `botsApiFunction`. With
 * `metrics`, the requests the rate limit refuses are counted. (The limit's setting is the ratelimit area's own;
 * `_cfg` stays so that the handlers calling this did not change with that move.)
 */
export function botsApiAuthFromConfig(_cfg: Config, table: DynamoTable, metrics?: Metrics): BotsApiAuthPorts {
  return { tokens: new DynamoTokenStore(table), limiter: wireBotsApiLimiter({ table, metrics }) };
}
