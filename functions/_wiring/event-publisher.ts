import { s3PayloadStoreOnFirstUse } from '#shared/events/adapters/lazy-s3-payload-store.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsEventQueue } from '#shared/events/adapters/sqs-event-queue.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import type { EventPublisher } from '#shared/events/envelope.ts';
import { makeEventPublisher } from '#shared/events/publish-event.ts';

/**
 * The deployment's EventPublisher (SQS `events` queue, large bodies in the transfer bucket). Call at module scope
 * of a function that emits events; the function declares `sendTo: ['events']` and
 * `buckets: { transfer: { write: ['payloads/'] } }` in its access.
 */
export function eventPublisherFromConfig(cfg: Config): EventPublisher {
  return makeEventPublisher({
    queue: new SqsEventQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_EVENTS')),
    payloads: s3PayloadStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  });
}
