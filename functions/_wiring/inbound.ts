import { s3RawReportStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-raw-report-store.ts';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  cacheChannels,
  channelFromItem,
  DynamoChannelDirectory,
  DynamoConversationStore,
  DynamoMessageStatusStore,
  type InboundReport,
  makeListUnsubscribe,
  makeOrderedLane,
  makeProcessInbound,
  makeProcessSesEvent,
  makeUnorderedLane,
  reportsFromSesNotification,
  sesEventOf,
  SqsOrderedInboundQueue,
} from '#shared/messaging/index.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsJsonQueue } from '#shared/kernel/aws/sqs-json-queue.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { jsonMessage, partialBatchResponse, processEach, workerFunction } from '#shared/http/worker.ts';
import { eventPublisherFromConfig } from './event-publisher.ts';
import { inboundMediaFromConfig } from './media.ts';
import { secretBoxFromConfig } from './secret-box.ts';
import { dynamoTable } from './table.ts';
import { mailParserFromConfig } from './untrusted-mail.ts';

/**
 * An inbound worker's handler, built once per cold start: `inbound-ordered` on the FIFO `inboundOrdered` queue (every
 * provider report, one contact's one after another: ../../shared/messaging/inbound/lanes.ts) or `inbound` on the
 * standard `inbound` queue (SES's notifications, forwarded to the ordered lane; reports set aside from it). The same
 * use case works a report on both; only the ordered lane may assume no other worker has the contact's reports.
 */
export async function inboundHandler(fn: 'inbound' | 'inbound-ordered') {
  const cfg = config();
  const logger = createLogger(fn);
  const table = dynamoTable(cfg);
  const secretBox = await secretBoxFromConfig(cfg);
  const channels = DynamoChannelDirectory.over(table, secretBox, channelFromItem);
  const ordered = fn === 'inbound-ordered';
  const log = {
    info: (message: string, extra?: Record<string, unknown>) => logger.info(message, extra ?? {}),
    warn: (message: string, extra?: Record<string, unknown>) => logger.warn(message, extra ?? {}),
    error: (message: string, extra?: Record<string, unknown>) => logger.error(message, extra ?? {}),
  };
  // Ordered lane: the marks' clearing goes on beside the contact's next report; awaited before a batch ends.
  const clearing = new Set<Promise<unknown>>();
  const processInbound = makeProcessInbound({
    channels: cacheChannels(channels),
    statuses: new DynamoMessageStatusStore(table),
    // Windows, mail threads and opt-outs.
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
    log,
    exclusive: ordered,
    ...(ordered
      ? {
          meanwhile: (step: Promise<unknown>) => {
            clearing.add(step);
            void step.finally(() => clearing.delete(step));
          },
        }
      : {}),
  });
  const orderedQueue = () =>
    new SqsOrderedInboundQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND_ORDERED'));

  if (ordered) {
    const queue = orderedQueue();
    const unordered = new SqsJsonQueue<InboundReport>(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND'));
    const workBatch = makeOrderedLane({
      work: (report) => processInbound.process(report),
      setAside: (report) => unordered.send(report),
      postpone: (entries) => queue.postpone(entries),
      commit: (receiptHandles) => queue.delete(receiptHandles),
      log,
    });
    return workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event, context: Context) => {
      const again = await workBatch(
        event.Records.map((r) => ({
          messageId: r.messageId,
          receiptHandle: r.receiptHandle,
          body: r.body,
          groupId: r.attributes.MessageGroupId ?? r.messageId,
          receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
        })),
        () => context.getRemainingTimeInMillis(),
      );
      await Promise.allSettled([...clearing]);
      return partialBatchResponse(again);
    });
  }

  // SES's sending events (Delivery, Bounce, Complaint, Reject of mail SES channels sent) come on this queue too.
  const statuses = new DynamoMessageStatusStore(table);
  const processSesEvent = makeProcessSesEvent({ statuses, channels, apply: processInbound.apply, log });
  const forwardTo = orderedQueue();
  // Mail SES judged spam or infected is dropped; the log says which and why.
  const workOne = makeUnorderedLane({
    mailReports: (body) => reportsFromSesNotification(body, (a) => channels.findByAddress(a), log),
    forward: (copies) => forwardTo.send(copies),
    work: (report) => processInbound.process(report),
  });
  return workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event) =>
    partialBatchResponse(
      await processEach(
        event.Records,
        (record) => {
          const body = jsonMessage(record.body);
          const sesEvent = sesEventOf(body);
          return sesEvent ? processSesEvent(sesEvent) : workOne(body);
        },
        logger,
        'inbound report',
      ),
    ),
  );
}
