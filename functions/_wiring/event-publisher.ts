import { type EventPublisher, makeEventPublisher, SqsEventQueue } from '#shared/events/index.ts';
import { s3PayloadStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-payload-store.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';

/**
 * The deployment's EventPublisher (SQS `events` queue, large bodies in the transfer bucket, its S3 client loaded on
 * the first large body). Call at module scope of a function that emits events; the function declares
 * `sendTo: ['events']` and `buckets: { transfer: { write: ['payloads/'] } }` in its access.
 */
export function eventPublisherFromConfig(cfg: Config): EventPublisher {
  return makeEventPublisher({
    queue: new SqsEventQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_EVENTS')),
    payloads: s3PayloadStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  });
}
