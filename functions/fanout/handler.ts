import { CachedWebhookLists, DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { s3PayloadStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-payload-store.ts';
import { requiredSetting } from '#shared/kernel/config.ts';
import { wireFanoutWorker } from '#shared/webhooks/index.ts';
import { eventLogOn } from '#shared/polling/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('fanout');
const { cfg, table } = platform;
const secrets = await secretBoxFromConfig(cfg);

/**
 * FIFO `events` queue → one delivery job per applicable webhook on the deliveries queues (partial batch response);
 * a notice event also queues its email to the project's contact.
 */
export const handler = wireFanoutWorker(platform, {
  // A project's webhooks remembered between batches while its change marker shows no change (one small read).
  directory: new CachedWebhookLists(new DynamoIntegrationStore(table, secrets)),
  projects: new DynamoProjectStore(table),
  secrets,
  // A filter on a large event (its body parked in S3) reads the body; nothing else does.
  payloads: s3PayloadStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  // Every event, kept 7 days for pollers (GET /api/integration/events).
  eventLog: eventLogOn(table),
});
