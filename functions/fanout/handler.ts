import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { s3PayloadStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-payload-store.ts';
import { DynamoEventBodies } from '#shared/webhooks/adapters/dynamo-event-bodies.ts';
import { SqsJsonQueue } from '#shared/kernel/aws/sqs-json-queue.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { makeFanout } from '#shared/webhooks/fanout.ts';
import { makeNoticeEmails, type NoticeEmailJob } from '#shared/webhooks/notice-emails.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { deliveryQueueFromConfig } from '#functions/_wiring/delivery-queue.ts';
import { partialBatchResponse, workerFunction } from '#shared/http/worker.ts';
import { eventLogOn } from '#shared/polling/index.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('fanout');
const metrics = new PowertoolsMetrics('fanout');
const secrets = await secretBoxFromConfig(cfg);
const table = dynamoTable(cfg);
const log = (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) =>
  logger[level](message, details);
const fanout = makeFanout({
  directory: new DynamoIntegrationStore(table, secrets),
  queue: deliveryQueueFromConfig(cfg),
  bodies: new DynamoEventBodies(table),
  secrets,
  // A filter on a large event (its body parked in S3) reads the body; nothing else does.
  payloads: s3PayloadStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  // A notice's email is a job of its own on `deliveries`, sent (and retried) by the deliver worker.
  sideEffects: makeNoticeEmails({
    projects: new DynamoProjectStore(table),
    queue: new SqsJsonQueue<NoticeEmailJob>(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
  }),
  // Every event, kept 7 days for pollers (GET /api/integration/events).
  eventLog: eventLogOn(table),
  log,
});

/**
 * FIFO `events` queue → one delivery job per applicable webhook on the deliveries queues (partial batch response);
 * a notice event also queues its email to the project's contact.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
  const failed = await fanout.fanoutBatch(
    event.Records.map((r) => ({
      messageId: r.messageId,
      body: r.body,
      ...(r.attributes.MessageGroupId ? { groupId: r.attributes.MessageGroupId } : {}),
    })),
  );
  metrics.count(metricNames.eventsFannedOut, event.Records.length - failed.length);
  return partialBatchResponse(failed);
});
