import { customTokenFunction, wireCustomTokenAuth } from '#shared/auth/index.ts';
import { wireProjectLimiter } from '#shared/projects/index.ts';
import { jsonObjectBody } from '#shared/http/presets.ts';
import { json } from '#shared/http/types.ts';
import { config } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { routes } from '#shared/contract/routes.ts';
import {
  DynamoBatchStore,
  DynamoConversationStore,
  makeAcceptBatch,
  makeBatchProgress,
} from '#shared/messaging/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { deferredSendsOn } from '#functions/_wiring/outbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('send-batch');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const route = routes.find((r) => r.fn === 'send-batch')!;
const deferred = deferredSendsOn(cfg, table, logger);
const batches = new DynamoBatchStore(table);
const acceptBatch = makeAcceptBatch({
  // The channel with every item's window and suppression items, read at once.
  conversations: new DynamoConversationStore(table, secretBox),
  batches,
  accept: deferred.accept,
});
const batchProgress = makeBatchProgress({ batches, messages: deferred.store });

const post = customTokenFunction({
  logger,
  ...wireCustomTokenAuth({ table }, { sends: wireProjectLimiter({ table }) }),
  idempotency: idempotencyOnDynamo(table, logger, route.timeoutSeconds + 10),
  body: jsonObjectBody(),
}).handler(async (event) => json(202, { success: true, ...(await acceptBatch(event.auth, event.parsedBody)) }));

const get = customTokenFunction({
  logger,
  ...wireCustomTokenAuth({ table }),
}).handler(async (event) => json(200, await batchProgress(event.auth, event.pathParameters?.batchId ?? '')));

/**
 * `POST /api/integration/generic/batch`: up to 1,000 sends accepted at once (202, one result per item: `queued`,
 * `scheduled` or `refused` with the code a send would answer), each then sent at the channel's pace and charged
 * when it leaves. `GET /api/integration/batches/{batchId}`: the batch's counts as its messages are now.
 */
export const handler = (event: { httpMethod?: string }, context: unknown) =>
  event.httpMethod === 'GET'
    ? get(event as Parameters<typeof get>[0], context as Parameters<typeof get>[1])
    : post(event as Parameters<typeof post>[0], context as Parameters<typeof post>[1]);
