import { DynamoRateLimiter } from '#shared/adapters/dynamodb/rate-limiter.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import type { Config } from '#shared/config/config.ts';
import type { BotsApiAuthPorts } from '#shared/http/presets.ts';
import { gcraParams } from '#shared/ratelimit/gcra.ts';

/** The Bots API's auth and rate limit on DynamoDB: what every `/api/v1/ai/*` function hands `botsApiFunction`. */
export function botsApiAuthFromConfig(cfg: Config, table: DynamoTable): BotsApiAuthPorts {
  return {
    tokens: new DynamoTokenStore(table),
    limiter: new DynamoRateLimiter(table, gcraParams(cfg.BOT_RATE_LIMIT_PER_MINUTE)),
  };
}
