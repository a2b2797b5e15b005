import { type CustomTokenAuthPorts, customTokenFunction } from '../../auth/index.ts';
import { jsonObjectBody, type ScopedIdempotency } from '../../http/presets.ts';
import { json } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { makeAcceptBatch } from '../volume/accept-batch.ts';
import type { makeBatchProgress } from '../volume/batch.ts';

/**
 * `POST /api/integration/generic/batch`: up to 1,000 sends accepted at once (202, one result per item: `queued`,
 * `scheduled` or `refused` with the code a send would answer), each then sent at the channel's pace and charged
 * when it leaves. `GET /api/integration/batches/{batchId}`: the batch's counts as its messages are now.
 */
export function sendBatchHandler(
  observed: { logger: Logger },
  deps: {
    sendAuth: CustomTokenAuthPorts;
    readAuth: CustomTokenAuthPorts;
    idempotency: ScopedIdempotency;
    acceptBatch: ReturnType<typeof makeAcceptBatch>;
    batchProgress: ReturnType<typeof makeBatchProgress>;
  },
) {
  const { logger } = observed;
  const post = customTokenFunction({
    logger,
    ...deps.sendAuth,
    idempotency: deps.idempotency,
    body: jsonObjectBody(),
  }).handler(async (event) => json(202, { success: true, ...(await deps.acceptBatch(event.auth, event.parsedBody)) }));
  const get = customTokenFunction({ logger, ...deps.readAuth }).handler(async (event) =>
    json(200, await deps.batchProgress(event.auth, event.pathParameters?.batchId ?? '')),
  );
  return (event: { httpMethod?: string }, context: unknown) =>
    event.httpMethod === 'GET'
      ? get(event as Parameters<typeof get>[0], context as Parameters<typeof get>[1])
      : post(event as Parameters<typeof post>[0], context as Parameters<typeof post>[1]);
}
