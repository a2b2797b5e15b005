import type { ScopedIdempotency } from '../http/presets.ts';
import type { DynamoTable } from '../kernel/aws/dynamo-table.ts';
import type { Logger } from '../kernel/logger.ts';
import { DynamoIdempotencyStore } from './adapters/dynamo-idempotency-store.ts';
import { idempotency } from './api/idempotency-middleware.ts';

/**
 * `Idempotency-Key` on the deployment's table for a preset, which gives the scope (the caller's project, integration,
 * or the admin key). `lockSeconds`: the function's timeout plus a margin, so a retry takes a key over only once the
 * first request can no longer be running.
 */
export function idempotencyOnDynamo(table: DynamoTable, logger: Logger, lockSeconds: number): ScopedIdempotency {
  const store = new DynamoIdempotencyStore(table);
  return (scope) => idempotency({ store, logger, lockSeconds, scope });
}
