import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3PayloadStore } from '#shared/kernel/aws/s3-payload-store.ts';
import { requiredSetting } from '#shared/kernel/config.ts';
import { loadNodemailer } from '#shared/kernel/adapters/load-nodemailer.ts';
import { wireDeliverWorker } from '#shared/webhooks/index.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';

/**
 * A deliver worker's handler, for the `deliveries` queue (`deliver`) or the FIFO `deliveriesOrdered` one
 * (`deliver-ordered`): the same use cases, built once per cold start on the webhooks area's wiring. The payload
 * store is built here, not loaded on first use: a large body's first attempt reads it at once.
 */
export async function deliverHandler(fn: 'deliver' | 'deliver-ordered') {
  const platform = meteredPlatform(fn);
  const { cfg, table } = platform;
  const secrets = await secretBoxFromConfig(cfg);
  return wireDeliverWorker(platform, {
    directory: new DynamoIntegrationStore(table, secrets),
    projects: new DynamoProjectStore(table),
    publisher: eventPublisherFromConfig(cfg),
    payloads: new S3PayloadStore(s3Client(cfg), requiredSetting(cfg, 'BUCKET_TRANSFER')),
    secrets,
    userAgent: USER_AGENT,
    loadMailer: loadNodemailer,
  });
}
