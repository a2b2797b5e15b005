import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDeliveryStore } from '#shared/webhooks/adapters/dynamo-delivery-store.ts';
import { DynamoIntegrationStore } from '#shared/integrations/adapters/dynamo-integration-store.ts';
import { DynamoWebhookAttemptStats } from '#shared/webhooks/adapters/dynamo-webhook-attempt-stats.ts';
import { DynamoWebhookHealthStore } from '#shared/webhooks/adapters/dynamo-webhook-health-store.ts';
import { DynamoWebhookPacer } from '#shared/webhooks/adapters/dynamo-webhook-pacer.ts';
import { HttpWebhookSender } from '#shared/webhooks/adapters/http-webhook-sender.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3PayloadStore } from '#shared/events/adapters/s3-payload-store.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsDeliveryQueue } from '#shared/webhooks/adapters/sqs-delivery-queue.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { makePacing } from '#shared/webhooks/pacing.ts';
import { isRecoverMessage } from '#shared/webhooks/recover.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { recoverOnDynamo } from '#functions/_wiring/recover.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { meteredWebhookSender } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { partialBatchResponse, processEach, workerFunction } from '#shared/http/worker.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('deliver');
const metrics = new PowertoolsMetrics('deliver');
const table = dynamoTable(cfg);
const secrets = await secretBoxFromConfig(cfg);
const directory = new DynamoIntegrationStore(table, secrets);
const deliver = makeDeliver({
  directory,
  deliveries: new DynamoDeliveryStore(table),
  health: new DynamoWebhookHealthStore(table),
  attemptStats: new DynamoWebhookAttemptStats(table),
  queue: new SqsDeliveryQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
  payloads: new S3PayloadStore(s3Client(cfg), requiredSetting(cfg, 'BUCKET_TRANSFER')),
  sender: meteredWebhookSender(
    new HttpWebhookSender({ timeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS, allowPrivate: cfg.webhookAllowPrivate }),
    metrics,
  ),
  pacing: makePacing({ pacer: new DynamoWebhookPacer(table) }),
  gate: new EndpointGate({
    maxInFlight: cfg.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    slowAfterMs: cfg.WEBHOOK_SLOW_AFTER_MS,
    maxWaitMs: 2 * cfg.WEBHOOK_SLOW_AFTER_MS,
    attemptTimeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS,
  }),
  secrets,
  schedule: parseRetrySchedule(cfg.WEBHOOK_RETRY_SCHEDULE),
  userAgent: USER_AGENT,
  log: (level, message, details) => logger[level](message, details),
});
// Recovers too large for their request go on here; well inside the function's 40 s timeout, the rest goes on in
// the next message.
const recover = recoverOnDynamo(cfg, table, directory, 25_000);

/**
 * `deliveries` queue → one HTTP attempt per job, all jobs of the batch at once. Jobs to retry later are postponed
 * in the queue and reported as batch item failures, so SQS keeps them until their next attempt.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
  // A recover too large for its request goes on here, one page set per message (shared/webhooks/recover.ts).
  const recovering = event.Records.filter((r) => isRecoverMessage(parseOrNull(r.body)));
  const recoverFailed = await processEach(
    recovering,
    async (r) => void (await recover.resume(JSON.parse(r.body))),
    logger,
    'recover continuation (it will be received again)',
  );
  const jobs = event.Records.filter((r) => !recovering.includes(r));
  const failed = await deliver.deliverBatch(
    jobs.map((r) => ({
      messageId: r.messageId,
      receiptHandle: r.receiptHandle,
      body: r.body,
      receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    })),
  );
  return partialBatchResponse([...failed, ...recoverFailed]);
});

function parseOrNull(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
