import type { Channel } from '../messaging/index.ts';
import type { EventPublisher } from '../events/index.ts';
import type { IntegrationStore } from '../integrations/index.ts';
import type { Project } from '../projects/index.ts';
import { sqsClient } from '../kernel/aws/sqs-client.ts';
import { SqsJsonQueue } from '../kernel/aws/sqs-json-queue.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { MeteredPlatform, Platform } from '../kernel/platform.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { AwsDestinationSender } from './adapters/aws-destination-sender.ts';
import { DynamoDeliveryStore } from './adapters/dynamo-delivery-store.ts';
import { DynamoEventBodies } from './adapters/dynamo-event-bodies.ts';
import { DynamoFailedDeliveries } from './adapters/dynamo-failed-deliveries.ts';
import { DynamoNoticeEmailLog } from './adapters/dynamo-notice-email-log.ts';
import { DynamoWebhookAttemptStats } from './adapters/dynamo-webhook-attempt-stats.ts';
import { DynamoWebhookHealthStore } from './adapters/dynamo-webhook-health-store.ts';
import { DynamoWebhookPacer } from './adapters/dynamo-webhook-pacer.ts';
import { HttpWebhookSender } from './adapters/http-webhook-sender.ts';
import { meteredWebhookSender } from './adapters/metered-webhook-sender.ts';
import { SmtpNoticeMailer } from './adapters/smtp-notice-mailer.ts';
import { SqsDeliveryQueue } from './adapters/sqs-delivery-queue.ts';
import { SqsRecoverContinuation } from './adapters/sqs-recover-continuation.ts';
import { deliveryHandlers } from './api/delivery-routes.ts';
import { deliverWorkerHandler } from './api/deliver-worker.ts';
import { webhookHealthHandlers } from './api/health-routes.ts';
import { recoverHandlers } from './api/recover-routes.ts';
import { fanoutWorkerHandler } from './api/fanout-worker.ts';
import { makeDeliver } from './deliver.ts';
import { type FanoutDeps, makeFanout } from './fanout.ts';
import type { DestinationSender } from './destination-sender.ts';
import { EndpointGate } from './endpoint-gate.ts';
import { makeWebhookHealthReport } from './health-report.ts';
import { makeWebhookAdmin } from './manage-deliveries.ts';
import { makeNoticeEmails, type NoticeEmailJob } from './notice-emails.ts';
import { makeWebhookNotices } from './notices.ts';
import { makePacing } from './pacing.ts';
import type { PayloadStore, WebhookDirectory } from './ports.ts';
import { makeRecoverFailedDeliveries, type RecoverFailedDeliveries } from './recover.ts';
import { parseRetrySchedule } from './retry-schedule.ts';
import { DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS, makeNoticeEmailSender } from './send-notice-email.ts';
import { webhookSettings } from './settings.ts';

type ProjectReader = { get(projectId: string): Promise<Project | undefined> };

/** The sender of deliveries into customers' AWS accounts, from this area's settings. */
export function wireDestinations(platform: Pick<Platform, 'cfg'>): DestinationSender {
  const { cfg } = platform;
  const settings = webhookSettings.read();
  const endpoints = {
    sqs: cfg.SQS_ENDPOINT,
    s3: cfg.S3_ENDPOINT,
    sts: settings.STS_ENDPOINT,
    sns: settings.SNS_ENDPOINT,
    eventbridge: settings.EVENTBRIDGE_ENDPOINT,
    kinesis: settings.KINESIS_ENDPOINT,
  };
  return new AwsDestinationSender({
    region: cfg.AWS_REGION,
    endpoints: Object.fromEntries(Object.entries(endpoints).filter(([, v]) => v !== undefined)),
    sessionSeconds: settings.DESTINATION_ROLE_SESSION_SECONDS,
    timeoutMs: settings.DESTINATION_ATTEMPT_TIMEOUT_MS,
    // Local runs: queue URLs of the stand-in's form are delivered to.
    allowLocalQueueUrls: cfg.webhookAllowPrivate,
  });
}

/**
 * The deliveries queues as one port: unordered jobs on `deliveries`, those of webhooks with `ordering: "conversation"`
 * on the FIFO `deliveriesOrdered`. A function that queues jobs declares `sendTo: ['deliveries',
 * 'deliveriesOrdered']`.
 */
export function wireDeliveryQueue(platform: Pick<Platform, 'cfg'>): SqsDeliveryQueue {
  const { cfg } = platform;
  return new SqsDeliveryQueue(
    sqsClient(cfg),
    requiredSetting(cfg, 'QUEUE_URL_DELIVERIES'),
    requiredSetting(cfg, 'QUEUE_URL_DELIVERIES_ORDERED'),
  );
}

/**
 * The recover use case on the table and the deliveries queues: the admin function starts a recover, the deliver
 * worker goes on with one handed over on `deliveries`. Both declare `sendTo: ['deliveries', 'deliveriesOrdered']`
 * and the table's work index in their access. `budgetMs`: how long one call works before handing the rest over.
 */
export function wireRecover(
  platform: Pick<Platform, 'cfg' | 'table'>,
  deps: { webhooks: Pick<WebhookDirectory, 'getWebhook'>; budgetMs: number },
): RecoverFailedDeliveries {
  const { cfg, table } = platform;
  const staleMs = webhookSettings.read().WEBHOOK_RECOVER_CLAIM_STALE_SECONDS * 1000;
  return makeRecoverFailedDeliveries({
    webhooks: deps.webhooks,
    failed: new DynamoFailedDeliveries(table, Date.now, staleMs),
    bodies: new DynamoEventBodies(table),
    queue: wireDeliveryQueue(platform),
    continuation: new SqsRecoverContinuation(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
    budgetMs: deps.budgetMs,
  });
}

/**
 * The management routes of deliveries: the test event, the delivery log and retries, recover (API Gateway gives a
 * request 29 s; the rest of a very large recover goes on in the deliver worker) and the health chart.
 */
export function wireWebhookAdmin(
  platform: Pick<Platform, 'cfg' | 'table'>,
  deps: {
    projects: ProjectReader;
    channels: { get(projectId: string, channelId: string): Promise<Channel | undefined> };
    webhooks: Pick<WebhookDirectory, 'getWebhook'> & Pick<IntegrationStore, 'get'>;
    events: EventPublisher;
  },
) {
  const { table } = platform;
  const admin = makeWebhookAdmin({
    ...deps,
    deliveries: new DynamoDeliveryStore(table),
    bodies: new DynamoEventBodies(table),
    queue: wireDeliveryQueue(platform),
  });
  const health = makeWebhookHealthReport({ ...deps, stats: new DynamoWebhookAttemptStats(table) });
  return {
    ...deliveryHandlers(admin),
    ...recoverHandlers(wireRecover(platform, { webhooks: deps.webhooks, budgetMs: 15_000 })),
    ...webhookHealthHandlers(health),
  };
}

/**
 * A deliver worker's handler (for `deliveries` or the FIFO `deliveriesOrdered`) and its use cases: deliveries with their notices,
 * pacing, endpoint gate and retry schedule from this area's settings; notice emails (mailed when NOTICE_SMTP_URL is
 * set, else logged); and recovers handed over by the admin function, each call well inside the worker's 40 s.
 * `payloads` holds large bodies, read by the first attempt of such a job (the function uses it at once).
 */
export function wireDeliverWorker(
  platform: MeteredPlatform,
  deps: {
    directory: WebhookDirectory;
    projects: ProjectReader;
    publisher: EventPublisher;
    payloads: PayloadStore;
    secrets: SecretBox;
    userAgent: string;
    /** nodemailer, loaded with the first notice email (the kernel's loader; see the SMTP notice mailer). */
    loadMailer: () => Promise<typeof import('nodemailer')>;
  },
) {
  const { cfg, logger, metrics, table } = platform;
  const settings = webhookSettings.read();
  const log = (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) =>
    logger[level](message, details);
  const health = new DynamoWebhookHealthStore(table);
  const queue = wireDeliveryQueue(platform);
  const { directory } = deps;
  const deliver = makeDeliver({
    directory,
    deliveries: new DynamoDeliveryStore(table),
    health,
    attemptStats: new DynamoWebhookAttemptStats(table),
    notices: makeWebhookNotices({
      publisher: deps.publisher,
      projects: deps.projects,
      directory,
      health,
      failingAfter: settings.WEBHOOK_FAILING_AFTER,
      log,
    }),
    queue,
    payloads: deps.payloads,
    sender: meteredWebhookSender(
      new HttpWebhookSender({ timeoutMs: settings.WEBHOOK_ATTEMPT_TIMEOUT_MS, allowPrivate: cfg.webhookAllowPrivate }),
      metrics,
    ),
    destinations: wireDestinations(platform),
    pacing: makePacing({
      pacer: new DynamoWebhookPacer(table),
      log: (message, details) => log('warn', message, details),
    }),
    gate: new EndpointGate({
      maxInFlight: settings.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      slowAfterMs: settings.WEBHOOK_SLOW_AFTER_MS,
      maxWaitMs: 2 * settings.WEBHOOK_SLOW_AFTER_MS,
      attemptTimeoutMs: settings.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    }),
    secrets: deps.secrets,
    schedule: parseRetrySchedule(settings.WEBHOOK_RETRY_SCHEDULE),
    userAgent: deps.userAgent,
    log,
  });
  // Notice emails (on `deliveries`), each a job with its own retries.
  const noticeEmails = makeNoticeEmailSender({
    ...(settings.NOTICE_SMTP_URL
      ? {
          mailer: new SmtpNoticeMailer(settings.NOTICE_SMTP_URL, settings.NOTICE_EMAIL_FROM, { load: deps.loadMailer }),
        }
      : {}),
    sent: new DynamoNoticeEmailLog(table),
    queue,
    schedule: parseRetrySchedule(settings.NOTICE_EMAIL_RETRY_SCHEDULE, DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS),
    log,
  });
  const recover = wireRecover(platform, { webhooks: directory, budgetMs: 25_000 });
  return deliverWorkerHandler(platform, { deliver, noticeEmails, recover });
}

/**
 * The fan-out worker's handler: each event of the `events` queue to the deliveries queues, one job per applicable
 * webhook. A notice's email is a job of its own on `deliveries`, sent (and retried) by the deliver worker. `payloads`
 * is read only by a filter on a large event (its body parked in S3): the caller loads it on first use.
 */
export function wireFanoutWorker(
  platform: MeteredPlatform,
  deps: Pick<FanoutDeps, 'directory' | 'secrets' | 'payloads' | 'eventLog'> & { projects: ProjectReader },
) {
  const { cfg, logger, table } = platform;
  const fanout = makeFanout({
    directory: deps.directory,
    queue: wireDeliveryQueue(platform),
    bodies: new DynamoEventBodies(table),
    secrets: deps.secrets,
    ...(deps.payloads ? { payloads: deps.payloads } : {}),
    sideEffects: makeNoticeEmails({
      projects: deps.projects,
      queue: new SqsJsonQueue<NoticeEmailJob>(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_DELIVERIES')),
    }),
    ...(deps.eventLog ? { eventLog: deps.eventLog } : {}),
    log: (level, message, details) => logger[level](message, details),
  });
  return fanoutWorkerHandler(platform, fanout);
}
