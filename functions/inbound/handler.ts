import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { InboundReport } from '#shared/messaging/inbound/report.ts';
import { logger, processInbound } from './wiring.ts';

/**
 * `inbound` queue → normalised events on the channels' webhooks. A report that fails (DynamoDB or the events queue
 * unreachable) is retried alone (partial batch response); its conditional writes make the retry emit nothing twice.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failed: string[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      let report: InboundReport;
      try {
        report = JSON.parse(record.body) as InboundReport;
      } catch {
        logger.warn('inbound queue message is not JSON: dropped', { messageId: record.messageId });
        return;
      }
      try {
        await processInbound.process(report);
      } catch (cause) {
        logger.error('inbound report failed: retried', { messageId: record.messageId, cause: String(cause) });
        failed.push(record.messageId);
      }
    }),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
};
