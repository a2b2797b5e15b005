import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoChannelDirectory } from '#shared/adapters/dynamodb/channel-directory.ts';
import { channelFromItem } from '#shared/adapters/dynamodb/channel-store.ts';
import { DynamoMessageStatusStore } from '#shared/adapters/dynamodb/message-status-store.ts';
import { parseMail } from '#shared/adapters/mailparser/parse-mail.ts';
import { s3RawReportStoreOnFirstUse } from '#shared/adapters/s3/on-first-use.ts';
import { config } from '#shared/config/config.ts';
import { secretBoxFromConfig } from '#shared/integrations/secret-box-from-config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { cacheChannels } from '#shared/messaging/inbound/channel-cache.ts';
import { makeProcessInbound } from '#shared/messaging/inbound/process-inbound.ts';
import { eventPublisherFromConfig } from '#shared/webhooks/event-publisher-from-config.ts';

/** Everything the `inbound` worker touches, built once per cold start. */
const cfg = config();
if (!cfg.BUCKET_TRANSFER) throw new Error('Invalid configuration: BUCKET_TRANSFER is required');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
const secretBox = await secretBoxFromConfig(cfg);

export const logger = createLogger('inbound');
export const channels = DynamoChannelDirectory.over(table, secretBox, channelFromItem);
export const processInbound = makeProcessInbound({
  channels: cacheChannels(channels),
  statuses: new DynamoMessageStatusStore(table),
  // The webhooks area's publisher: the same event path as every other producer.
  events: eventPublisherFromConfig(cfg),
  rawReports: s3RawReportStoreOnFirstUse(cfg, cfg.BUCKET_TRANSFER),
  parseMail,
  log: {
    info: (message, extra) => logger.info(message, extra ?? {}),
    warn: (message, extra) => logger.warn(message, extra ?? {}),
  },
});
