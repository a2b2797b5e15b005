import { DynamoTokenStore, pollerTokenFunction } from '#shared/auth/index.ts';
import { s3PayloadStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-payload-store.ts';
import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { pollingSettings, wirePolling } from '#shared/polling/index.ts';
import { DynamoRateLimiter } from '#shared/ratelimit/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('events-poll');
const table = dynamoTable(cfg);
const secrets = await secretBoxFromConfig(cfg);
const payloads = s3PayloadStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER'));
const polling = wirePolling({
  table,
  secrets,
  integrations: new DynamoIntegrationStore(table, secrets),
  bodyOf: (bodyRef) => payloads.get(bodyRef),
  // A bucket of one second's worth per poller, refilled continuously.
  limiter: new DynamoRateLimiter(table, { limit: pollingSettings.read().POLL_RATE_LIMIT_PER_SECOND, windowMs: 1_000 }),
});

/** `GET /api/integration/events?cursor&limit` (a poller's `sbp_` token): its project's events, oldest first. */
export const handler = pollerTokenFunction({ logger, tokens: new DynamoTokenStore(table) }).handler(polling.handler);
