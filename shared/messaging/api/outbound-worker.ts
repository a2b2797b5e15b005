import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { partialBatchResponse, workerFunction } from '../../http/worker.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { makeWorkOutbound, OutboundRecord } from '../volume/work-outbound.ts';

/**
 * `outbound` queue → batch items and scheduled sends, each at its channel's pace and time. A job whose turn or time
 * is further off goes back on the queue for about that long (reported as a batch item failure after its visibility
 * was changed); a message is claimed once, so a job seen twice sends nothing twice.
 */
export function outboundWorkerHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  deps: {
    workOutbound: ReturnType<typeof makeWorkOutbound>;
    /** Shows each job again in `seconds` (SQS: its visibility changed). */
    queue: { postpone(entries: readonly { receiptHandle: string; seconds: number }[]): Promise<void> };
  },
) {
  const { logger, metrics } = observed;
  return workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
    const receipts = new Map(event.Records.map((r) => [r.messageId, r.receiptHandle]));
    const records: OutboundRecord[] = [];
    for (const r of event.Records) {
      try {
        records.push({ id: r.messageId, job: JSON.parse(r.body) });
      } catch {
        logger.warn('outbound: a job that is not JSON was dropped', { messageId: r.messageId });
      }
    }
    const outcomes = await deps.workOutbound(records);
    const later = outcomes.filter((o) => !o.done);
    await deps.queue
      .postpone(later.map((o) => ({ receiptHandle: receipts.get(o.id)!, seconds: o.done ? 0 : o.seconds })))
      .catch((cause) =>
        logger.warn('outbound: postponing failed (the jobs come back at their visibility timeout)', {
          cause: String(cause),
        }),
      );
    return partialBatchResponse(later.map((o) => o.id));
  });
}
