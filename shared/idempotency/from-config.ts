import { DynamoIdempotencyStore } from '../adapters/dynamodb/idempotency-store.ts';
import type { DynamoTable } from '../adapters/dynamodb/table.ts';
import type { HttpEvent } from '../http/types.ts';
import type { Logger } from '../logging/logger.ts';
import { idempotency } from '../http/idempotency.ts';

/**
 * The `Idempotency-Key` middleware on DynamoDB. Use it right after authentication:
 * `.use(idempotencyFromConfig(table, logger, { scope: (e) => e.auth.grant.projectId, lockSeconds: 100 }))`.
 */
export function idempotencyFromConfig(
  table: DynamoTable,
  logger: Logger,
  options: { scope: (event: HttpEvent<unknown, any>) => string; lockSeconds: number },
) {
  return idempotency({ store: new DynamoIdempotencyStore(table), logger, ...options });
}
