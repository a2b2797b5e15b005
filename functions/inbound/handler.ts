import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { InboundReport } from '#shared/messaging/inbound/report.ts';
import { reportsFromSesNotification } from '#shared/messaging/inbound/ses.ts';
import { channels, logger, processInbound } from './wiring.ts';

/**
 * `inbound` queue → normalised events on the channels' webhooks. Messages are the inbound functions' and the local
 * mailbox's reports, or SES receipt notifications (AWS inbound mail). A report that fails (DynamoDB or the events
 * queue unreachable) is retried alone (partial batch response); its conditional writes make the retry emit nothing
 * twice.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failed: string[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        logger.warn('inbound queue message is not JSON: dropped', { messageId: record.messageId });
        return;
      }
      try {
        const reports = (await reportsFromSesNotification(body, (a) => channels.findByAddress(a))) ?? [
          body as InboundReport,
        ];
        for (const report of reports) await processInbound.process(report);
      } catch (cause) {
        logger.error('inbound report failed: retried', { messageId: record.messageId, cause: String(cause) });
        failed.push(record.messageId);
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
};
