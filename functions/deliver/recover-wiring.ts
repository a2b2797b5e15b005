import { DynamoFailedDeliveries } from '#shared/adapters/dynamodb/failed-deliveries.ts';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsRecoverContinuation } from '#shared/adapters/sqs/recover-continuation.ts';
import { SqsDeliveryQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import type { Config } from '#shared/config/config.ts';
import type { SecretBox } from '#shared/integrations/secret-box.ts';
import { makeRecoverFailedDeliveries, type RecoverFailedDeliveries } from '#shared/webhooks/recover.ts';

/** The recover use case wired to DynamoDB and the deliveries queue, to go on with recovers handed over by the admin function. */
export function recoverFromConfig(cfg: Config, table: DynamoTable, secretBox: SecretBox): RecoverFailedDeliveries {
  if (!cfg.QUEUE_URL_DELIVERIES) throw new Error('Invalid configuration: QUEUE_URL_DELIVERIES is required');
  return makeRecoverFailedDeliveries({
    webhooks: new DynamoIntegrationStore(table, secretBox),
    failed: new DynamoFailedDeliveries(table),
    queue: new SqsDeliveryQueue(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    continuation: new SqsRecoverContinuation(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    // Well inside the function's 40 s timeout; what is left goes on in the next message.
    budgetMs: 25_000,
  });
}
