import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoIntegrationStore } from '#shared/integrations/adapters/dynamo-integration-store.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsDeliveryQueue } from '#shared/webhooks/adapters/sqs-delivery-queue.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { makeFanout } from '#shared/webhooks/fanout.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { partialBatchResponse, workerFunction } from '#shared/http/worker.ts';

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
  return partialBatchResponse(failed);
});
