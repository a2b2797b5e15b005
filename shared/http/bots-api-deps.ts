import { makeAuthenticateApiToken } from '../auth/authenticate.ts';
import { DynamoRateLimiter } from '../adapters/dynamodb/rate-limiter.ts';
import { DynamoTokenStore } from '../adapters/dynamodb/token-store.ts';
import type { DynamoTable } from '../adapters/dynamodb/table.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { gcraParams } from '../ratelimit/gcra.ts';
import { botsApiAuth } from './bots-api.ts';

/** The Bots API's auth + rate-limit middleware wired to DynamoDB: what every `/api/v1/ai/*` function starts with. */
export function botsApiAuthFromConfig(cfg: Config, table: DynamoTable, logger: Logger) {
  return botsApiAuth({
    authenticate: makeAuthenticateApiToken({ tokens: new DynamoTokenStore(table) }),
    limiter: new DynamoRateLimiter(table, gcraParams(cfg.BOT_RATE_LIMIT_PER_MINUTE)),
    logger,
  });
}
