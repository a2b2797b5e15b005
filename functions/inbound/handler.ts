import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoChannelDirectory } from '#shared/messaging/adapters/dynamo-channel-directory.ts';
import { channelFromItem } from '#shared/messaging/adapters/dynamo-channel-store.ts';
import { DynamoConversationStore } from '#shared/messaging/adapters/dynamo-conversation-store.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { s3RawReportStoreOnFirstUse } from '#shared/messaging/adapters/lazy-s3-raw-report-store.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { cacheChannels } from '#shared/messaging/inbound/channel-cache.ts';
import { makeProcessInbound } from '#shared/messaging/inbound/process-inbound.ts';
import { makeListUnsubscribe } from '#shared/messaging/list-unsubscribe.ts';
import type { InboundReport } from '#shared/messaging/inbound/report.ts';
import { reportsFromSesNotification } from '#shared/messaging/inbound/ses.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { inboundMediaFromConfig } from '#functions/_wiring/media.ts';
import { mailParserFromConfig } from '#functions/_wiring/untrusted-mail.ts';
import { jsonMessage, partialBatchResponse, processEach, workerFunction } from '#shared/http/worker.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('inbound');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const channels = DynamoChannelDirectory.over(table, secretBox, channelFromItem);
const processInbound = makeProcessInbound({
  channels: cacheChannels(channels),
  statuses: new DynamoMessageStatusStore(table),
  // Windows, mail threads and opt-outs (contract §17).
  conversations: new DynamoConversationStore(table, secretBox),
  // A mailed unsubscribe is believed when sent to the sender's own unsubscribe address (keyed per channel).
  unsubscribe: makeListUnsubscribe(secretBox),
  // Media fetched once with the channel's credentials, stored in the transfer bucket, offered as presigned GETs.
  media: inboundMediaFromConfig(cfg),
  // The webhooks area's publisher: the same event path as every other producer.
  events: eventPublisherFromConfig(cfg),
  rawReports: s3RawReportStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  // In-process on AWS; in a sandbox thread locally (UNTRUSTED_PARSING).
  parseMail: mailParserFromConfig(cfg),
  log: {
    info: (message, extra) => logger.info(message, extra ?? {}),
    warn: (message, extra) => logger.warn(message, extra ?? {}),
  },
});

// Mail SES judged spam or infected is dropped; the log says which and why (contract §15).
const sesLog = { info: (message: string, extra?: Record<string, unknown>) => logger.info(message, extra ?? {}) };

/**
 * `inbound` queue → normalised events on the channels' webhooks. Messages are the inbound functions' and the local
 * mailbox's reports, or SES receipt notifications (inbound mail, on AWS and locally). A report that fails (DynamoDB
 * or the events queue unreachable) is retried alone (partial batch response); its conditional writes make the retry
 * emit nothing twice.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event) =>
  partialBatchResponse(
    await processEach(
      event.Records,
      async (record) => {
        const body = jsonMessage(record.body);
        const reports = (await reportsFromSesNotification(body, (a) => channels.findByAddress(a), sesLog)) ?? [
          body as InboundReport,
        ];
        for (const report of reports) await processInbound.process(report);
      },
      logger,
      'inbound report',
    ),
  ),
);
