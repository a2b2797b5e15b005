import { s3Client } from '../adapters/s3/clients.ts';
import { S3PayloadStore } from '../adapters/s3/payload-store.ts';
import { sqsClient } from '../adapters/sqs/clients.ts';
import { SqsEventQueue } from '../adapters/sqs/webhook-queues.ts';
import type { Config } from '../config/config.ts';
import type { EventPublisher } from './events.ts';
import { makeEventPublisher } from './publish.ts';

/**
 * The deployment's EventPublisher (SQS `events` queue, large bodies in the transfer bucket). Call at module scope
 * of a function that emits events; the function declares `sendTo: ['events']` and
 * `buckets: { transfer: { write: ['payloads/'] } }` in its access.
 */
export function eventPublisherFromConfig(cfg: Config): EventPublisher {
  if (!cfg.QUEUE_URL_EVENTS) throw new Error('Invalid configuration: QUEUE_URL_EVENTS is required to publish events');
  if (!cfg.BUCKET_TRANSFER) throw new Error('Invalid configuration: BUCKET_TRANSFER is required to publish events');
  return makeEventPublisher({
    queue: new SqsEventQueue(sqsClient(cfg), cfg.QUEUE_URL_EVENTS),
    payloads: new S3PayloadStore(s3Client(cfg), cfg.BUCKET_TRANSFER),
  });
}
