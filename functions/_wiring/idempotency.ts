import { DynamoIdempotencyStore } from '#shared/idempotency/adapters/dynamo-idempotency-store.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import type { ScopedIdempotency } from '#shared/http/presets.ts';
import { idempotency } from '#shared/idempotency/api/idempotency-middleware.ts';
import type { Logger } from '#shared/kernel/logger.ts';

/**
 * `Idempotency-Key` on DynamoDB for a preset, which gives the scope (the caller's project, integration, or the
 * admin key). `lockSeconds`: the function's timeout plus a margin, so a retry takes a key over only once the first
 * request can no longer be running.
 */
export function idempotencyOnDynamo(table: DynamoTable, logger: Logger, lockSeconds: number): ScopedIdempotency {
  const store = new DynamoIdempotencyStore(table);
  return (scope) => idempotency({ store, logger, lockSeconds, scope });
}
