import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DynamoDeliveryStore } from '#shared/webhooks/adapters/dynamo-delivery-store.ts';
import { DynamoIntegrationStore } from '#shared/integrations/index.ts';
import { DynamoProjectStore } from '#shared/projects/index.ts';
import { DynamoWebhookAttemptStats } from '#shared/webhooks/adapters/dynamo-webhook-attempt-stats.ts';
import { DynamoWebhookHealthStore } from '#shared/webhooks/adapters/dynamo-webhook-health-store.ts';
import { DynamoWebhookPacer } from '#shared/webhooks/adapters/dynamo-webhook-pacer.ts';
import { HttpWebhookSender } from '#shared/webhooks/adapters/http-webhook-sender.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3PayloadStore } from '#shared/kernel/aws/s3-payload-store.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { makeWebhookNotices } from '#shared/webhooks/notices.ts';
import { isNoticeEmailJob } from '#shared/webhooks/notice-emails.ts';
import {
  DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS,
  makeNoticeEmailSender,
  type ReceivedNoticeEmail,
} from '#shared/webhooks/send-notice-email.ts';
import { DynamoNoticeEmailLog } from '#shared/webhooks/adapters/dynamo-notice-email-log.ts';
import { SmtpNoticeMailer } from '#shared/webhooks/adapters/smtp-notice-mailer.ts';
import { makePacing } from '#shared/webhooks/pacing.ts';
import { isRecoverMessage } from '#shared/webhooks/recover.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { recoverOnDynamo } from '#functions/_wiring/recover.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { meteredWebhookSender } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { deliveryQueueFromConfig } from '#functions/_wiring/delivery-queue.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { partialBatchResponse, processEach, workerFunction } from '#shared/http/worker.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';
import { wireDestinations } from '#shared/webhooks/wiring.ts';

/**
 * A deliver worker's handler, for the `deliveries` queue (`deliver`) or the FIFO `deliveriesOrdered` one
 * (`deliver-ordered`): the same use case, its adapters built once per cold start. On the FIFO queue each record
 * carries its message group, which keeps one conversation's jobs of a batch in order.
 */
export async function deliverHandler(fn: 'deliver' | 'deliver-ordered') {
  const cfg = config();
  const logger = createLogger(fn);
  const metrics = new PowertoolsMetrics(fn);
  const table = dynamoTable(cfg);
  const secrets = await secretBoxFromConfig(cfg);
  const directory = new DynamoIntegrationStore(table, secrets);
  const health = new DynamoWebhookHealthStore(table);
  const log = (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) =>
    logger[level](message, details);
  const deliver = makeDeliver({
    directory,
    deliveries: new DynamoDeliveryStore(table),
    health,
    attemptStats: new DynamoWebhookAttemptStats(table),
    notices: makeWebhookNotices({
      publisher: eventPublisherFromConfig(cfg),
      projects: new DynamoProjectStore(table),
      directory,
      health,
      failingAfter: cfg.WEBHOOK_FAILING_AFTER,
      log,
    }),
    queue: deliveryQueueFromConfig(cfg),
    payloads: new S3PayloadStore(s3Client(cfg), requiredSetting(cfg, 'BUCKET_TRANSFER')),
    sender: meteredWebhookSender(
      new HttpWebhookSender({ timeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS, allowPrivate: cfg.webhookAllowPrivate }),
      metrics,
    ),
    destinations: wireDestinations({
      region: cfg.AWS_REGION,
      sqsEndpoint: cfg.SQS_ENDPOINT,
      s3Endpoint: cfg.S3_ENDPOINT,
      allowPrivateDestinations: cfg.webhookAllowPrivate,
    }),
    pacing: makePacing({
      pacer: new DynamoWebhookPacer(table),
      log: (message, details) => log('warn', message, details),
    }),
    gate: new EndpointGate({
      maxInFlight: cfg.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      slowAfterMs: cfg.WEBHOOK_SLOW_AFTER_MS,
      maxWaitMs: 2 * cfg.WEBHOOK_SLOW_AFTER_MS,
      attemptTimeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    }),
    secrets,
    schedule: parseRetrySchedule(cfg.WEBHOOK_RETRY_SCHEDULE),
    userAgent: USER_AGENT,
    log,
  });
  // Notice emails (on `deliveries`), each a job with its own retries.
  const noticeEmails = makeNoticeEmailSender({
    ...(cfg.NOTICE_SMTP_URL ? { mailer: new SmtpNoticeMailer(cfg.NOTICE_SMTP_URL, cfg.NOTICE_EMAIL_FROM) } : {}),
    sent: new DynamoNoticeEmailLog(table),
    queue: deliveryQueueFromConfig(cfg),
    schedule: parseRetrySchedule(cfg.NOTICE_EMAIL_RETRY_SCHEDULE, DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS),
    log,
  });
  // Recovers too large for their request go on here (on `deliveries`); well inside the function's 40 s timeout,
  // the rest goes on in the next message.
  const recover = recoverOnDynamo(cfg, table, directory, 25_000);

  return workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
    // Three kinds of message share `deliveries`: delivery jobs, a recover too large for its request (one page set per
    // message, shared/webhooks/recover.ts) and notice emails. Each kind runs beside the others.
    const recovering: SQSRecord[] = [];
    const emails: ReceivedNoticeEmail[] = [];
    const jobs: SQSRecord[] = [];
    for (const r of event.Records) {
      const body = parseOrNull(r.body);
      if (isRecoverMessage(body)) recovering.push(r);
      else if (isNoticeEmailJob(body)) emails.push({ ...received(r), job: body });
      else jobs.push(r);
    }
    const [recoverFailed, emailsKept, failed] = await Promise.all([
      processEach(
        recovering,
        async (r) => void (await recover.resume(JSON.parse(r.body))),
        logger,
        'recover continuation (it will be received again)',
      ),
      noticeEmails.sendBatch(emails),
      deliver.deliverBatch(
        jobs.map((r) => ({
          ...received(r),
          body: r.body,
          ...(r.attributes.MessageGroupId ? { groupId: r.attributes.MessageGroupId } : {}),
        })),
      ),
    ]);
    return partialBatchResponse([...failed, ...recoverFailed, ...emailsKept]);
  });
}

function received(r: SQSRecord) {
  return {
    messageId: r.messageId,
    receiptHandle: r.receiptHandle,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
  };
}

function parseOrNull(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
