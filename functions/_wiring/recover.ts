import { DynamoEventBodies } from '#shared/webhooks/adapters/dynamo-event-bodies.ts';
import { DynamoFailedDeliveries } from '#shared/webhooks/adapters/dynamo-failed-deliveries.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsRecoverContinuation } from '#shared/webhooks/adapters/sqs-recover-continuation.ts';
import { deliveryQueueFromConfig } from '#functions/_wiring/delivery-queue.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import type { WebhookDirectory } from '#shared/webhooks/ports.ts';
import { makeRecoverFailedDeliveries, type RecoverFailedDeliveries } from '#shared/webhooks/recover.ts';

/**
 * The recover use case on DynamoDB and the deliveries queues: the admin function starts a recover, the deliver
 * worker goes on with one handed over on `deliveries`. Both declare `sendTo: ['deliveries', 'deliveriesOrdered']`
 * and the table's work index in their access. `budgetMs`: how long one call works before handing the rest over.
 */
export function recoverOnDynamo(
  cfg: Config,
  table: DynamoTable,
  webhooks: Pick<WebhookDirectory, 'getWebhook'>,
  budgetMs: number,
): RecoverFailedDeliveries {
  const queueUrl = requiredSetting(cfg, 'QUEUE_URL_DELIVERIES');
  return makeRecoverFailedDeliveries({
    webhooks,
    failed: new DynamoFailedDeliveries(table, Date.now, cfg.WEBHOOK_RECOVER_CLAIM_STALE_SECONDS * 1000),
    bodies: new DynamoEventBodies(table),
    queue: deliveryQueueFromConfig(cfg),
    continuation: new SqsRecoverContinuation(sqsClient(cfg), queueUrl),
    budgetMs,
  });
}
