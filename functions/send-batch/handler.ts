import { wireCustomTokenAuth } from '#shared/auth/index.ts';
import { routes } from '#shared/contract/routes.ts';
import { idempotencyOnDynamo } from '#shared/idempotency/index.ts';
import { wireSendBatch } from '#shared/messaging/index.ts';
import { wireProjectLimiter } from '#shared/projects/index.ts';
import { platform as functionPlatform } from '#functions/_wiring/platform.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';

// Composition root: built once per cold start.
const platform = functionPlatform('send-batch');
const { cfg, logger, table } = platform;
const route = routes.find((r) => r.fn === 'send-batch')!;

/**
 * `POST /api/integration/generic/batch` (up to 1,000 sends accepted at once, each sent at the channel's pace) and
 * `GET /api/integration/batches/{batchId}` (the batch's counts): shared/messaging/api/batch-route.ts.
 */
export const handler = wireSendBatch(platform, {
  sendAuth: wireCustomTokenAuth(platform, { sends: wireProjectLimiter(platform) }),
  readAuth: wireCustomTokenAuth(platform),
  idempotency: idempotencyOnDynamo(table, logger, route.timeoutSeconds + 10),
  secretBox: await secretBoxFromConfig(cfg),
});
