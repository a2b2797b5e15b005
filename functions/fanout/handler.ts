import { PowertoolsMetrics } from '#shared/adapters/powertools/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsDeliveryQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import { config, requiredSetting } from '#shared/config/config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { metricNames } from '#shared/observability/metrics.ts';
import { makeFanout } from '#shared/webhooks/fanout.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { workerFunction } from '#functions/_wiring/worker.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('fanout');
const metrics = new PowertoolsMetrics('fanout');
const secrets = await secretBoxFromConfig(cfg);
const fanout = makeFanout({
  directory: new DynamoIntegrationStore(dynamoTable(cfg), secrets),
  queue: new SqsDeliveryQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
  secrets,
  log: (level, message, details) => logger[level](message, details),
});

/** `events` queue → one delivery job per applicable webhook on the `deliveries` queue (partial batch response). */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
  const failed = await fanout.fanoutBatch(event.Records.map((r) => ({ messageId: r.messageId, body: r.body })));
  metrics.count(metricNames.eventsFannedOut, event.Records.length - failed.length);
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
});
