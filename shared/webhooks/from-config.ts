import { dynamoDocumentClient } from '../adapters/aws/clients.ts';
import { DynamoDeliveryStore } from '../adapters/dynamodb/delivery-store.ts';
import { DynamoIntegrationStore } from '../adapters/dynamodb/integration-store.ts';
import { DynamoWebhookPacer } from '../adapters/dynamodb/webhook-pacer.ts';
import { DynamoWebhookHealthStore } from '../adapters/dynamodb/webhook-health-store.ts';
import { HttpWebhookSender } from '../adapters/http/webhook-sender.ts';
import { s3Client } from '../adapters/s3/clients.ts';
import { S3PayloadStore } from '../adapters/s3/payload-store.ts';
import { sqsClient } from '../adapters/sqs/clients.ts';
import { SqsDeliveryQueue } from '../adapters/sqs/webhook-queues.ts';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../integrations/secret-box.ts';
import type { Logger } from '../logging/logger.ts';
import { makeDeliver } from './deliver.ts';
import { EndpointGate } from './endpoint-gate.ts';
import { makeFanout } from './fanout.ts';
import { makePacing } from './pacing.ts';
import { parseRetrySchedule } from './retry-schedule.ts';

/** `User-Agent` of every delivery (contract: `<product>/<version>`). */
export const WEBHOOK_USER_AGENT = 'Switchboard/0.1.0';

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`Invalid configuration: ${name} is required`);
  return value;
}

const logTo =
  (logger: Logger) => (level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown>) =>
    logger[level](message, details);

/** The fan-out use case wired to DynamoDB and SQS. Call at module scope (once per cold start). */
export function fanoutFromConfig(cfg: Config, secrets: SecretBox, logger: Logger) {
  const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
  return makeFanout({
    directory: new DynamoIntegrationStore(table, secrets),
    queue: new SqsDeliveryQueue(sqsClient(cfg), required(cfg.QUEUE_URL_DELIVERIES, 'QUEUE_URL_DELIVERIES')),
    secrets,
    log: logTo(logger),
  });
}

/** The deliver use case wired to DynamoDB, SQS, S3 and HTTP. Call at module scope (once per cold start). */
export function deliverFromConfig(cfg: Config, secrets: SecretBox, logger: Logger) {
  const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
  return makeDeliver({
    directory: new DynamoIntegrationStore(table, secrets),
    deliveries: new DynamoDeliveryStore(table),
    health: new DynamoWebhookHealthStore(table),
    queue: new SqsDeliveryQueue(sqsClient(cfg), required(cfg.QUEUE_URL_DELIVERIES, 'QUEUE_URL_DELIVERIES')),
    payloads: new S3PayloadStore(s3Client(cfg), required(cfg.BUCKET_TRANSFER, 'BUCKET_TRANSFER')),
    sender: new HttpWebhookSender({ timeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS, allowPrivate: cfg.webhookAllowPrivate }),
    pacing: makePacing({ pacer: new DynamoWebhookPacer(table) }),
    gate: new EndpointGate({
      maxInFlight: cfg.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      slowAfterMs: cfg.WEBHOOK_SLOW_AFTER_MS,
      maxWaitMs: 2 * cfg.WEBHOOK_SLOW_AFTER_MS,
      attemptTimeoutMs: cfg.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    }),
    secrets,
    schedule: parseRetrySchedule(cfg.WEBHOOK_RETRY_SCHEDULE),
    userAgent: WEBHOOK_USER_AGENT,
    log: logTo(logger),
  });
}
