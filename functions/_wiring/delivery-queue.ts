import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsDeliveryQueue } from '#shared/webhooks/adapters/sqs-delivery-queue.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';

/**
 * The deliveries queues as one port: unordered jobs on `deliveries`, those of webhooks with `ordering: "conversation"`
 * on the FIFO `deliveriesOrdered`. A function that queues jobs declares `sendTo: ['deliveries',
 * 'deliveriesOrdered']`.
 */
export function deliveryQueueFromConfig(cfg: Config): SqsDeliveryQueue {
  return new SqsDeliveryQueue(
    sqsClient(cfg),
    requiredSetting(cfg, 'QUEUE_URL_DELIVERIES'),
    requiredSetting(cfg, 'QUEUE_URL_DELIVERIES_ORDERED'),
  );
}
