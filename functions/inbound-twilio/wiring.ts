import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoChannelDirectory } from '#shared/adapters/dynamodb/channel-directory.ts';
import { channelFromItem } from '#shared/adapters/dynamodb/channel-store.ts';
import { s3RawReportStoreOnFirstUse } from '#shared/adapters/s3/on-first-use.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsInboundQueue } from '#shared/adapters/sqs/inbound-queue.ts';
import { config } from '#shared/config/config.ts';
import { secretBoxFromConfig } from '#shared/integrations/secret-box-from-config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { makeAcceptInbound } from '#shared/messaging/inbound/accept-inbound.ts';

/**
 * Everything `POST /inbound/twilio/{channelId}` touches, built once per cold start: the channel directory (one
 * GetItem), the `inbound` queue (one send), the transfer bucket (only for reports over 200 KB).
 */
export async function inboundWiring(fn: string) {
  const cfg = config();
  if (!cfg.QUEUE_URL_INBOUND) throw new Error('Invalid configuration: QUEUE_URL_INBOUND is required');
  if (!cfg.BUCKET_TRANSFER) throw new Error('Invalid configuration: BUCKET_TRANSFER is required');
  if (!cfg.PUBLIC_BASE_URL) throw new Error('Invalid configuration: PUBLIC_BASE_URL is required');
  const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
  const secretBox = await secretBoxFromConfig(cfg);
  return {
    logger: createLogger(fn),
    accept: makeAcceptInbound({
      channels: DynamoChannelDirectory.over(table, secretBox, channelFromItem),
      queue: new SqsInboundQueue(sqsClient(cfg), cfg.QUEUE_URL_INBOUND),
      parked: s3RawReportStoreOnFirstUse(cfg, cfg.BUCKET_TRANSFER),
      publicBaseUrl: cfg.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    }),
  };
}
