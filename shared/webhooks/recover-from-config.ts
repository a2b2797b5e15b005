import { DynamoFailedDeliveries } from '../adapters/dynamodb/failed-deliveries.ts';
import { DynamoIntegrationStore } from '../adapters/dynamodb/integration-store.ts';
import type { DynamoTable } from '../adapters/dynamodb/table.ts';
import { sqsClient } from '../adapters/sqs/clients.ts';
import { SqsRecoverContinuation } from '../adapters/sqs/recover-continuation.ts';
import { SqsDeliveryQueue } from '../adapters/sqs/webhook-queues.ts';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../integrations/secret-box.ts';
import { makeRecoverFailedDeliveries, type RecoverFailedDeliveries } from './recover.ts';

/** The recover use case wired to DynamoDB and the deliveries queue; shared by the admin function and deliver. */
export function recoverFromConfig(cfg: Config, table: DynamoTable, secretBox: SecretBox): RecoverFailedDeliveries {
  if (!cfg.QUEUE_URL_DELIVERIES) throw new Error('Invalid configuration: QUEUE_URL_DELIVERIES is required');
  return makeRecoverFailedDeliveries({
    webhooks: new DynamoIntegrationStore(table, secretBox),
    failed: new DynamoFailedDeliveries(table),
    queue: new SqsDeliveryQueue(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    continuation: new SqsRecoverContinuation(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
    // API Gateway gives a request 29 s; the rest of a very large window goes on in the deliver worker.
    budgetMs: 15_000,
  });
}
