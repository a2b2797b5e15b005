import { s3PayloadStoreOnFirstUse } from '#shared/adapters/s3/on-first-use.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsEventQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import { requiredSetting, type Config } from '#shared/config/config.ts';
import type { EventPublisher } from '#shared/webhooks/events.ts';
import { makeEventPublisher } from '#shared/webhooks/publish.ts';

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
