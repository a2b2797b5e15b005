import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { metricNames } from '../../contract/metrics.ts';
import { partialBatchResponse, workerFunction } from '../../http/worker.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { makeFanout } from '../fanout.ts';

/**
 * FIFO `events` queue → one delivery job per applicable webhook on the deliveries queues (partial batch response);
 * a notice event also queues its email to the project's contact.
 */
export function fanoutWorkerHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  fanout: ReturnType<typeof makeFanout>,
) {
  const { logger, metrics } = observed;
  return workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
    const failed = await fanout.fanoutBatch(
      event.Records.map((r) => ({
        messageId: r.messageId,
        body: r.body,
        ...(r.attributes.MessageGroupId ? { groupId: r.attributes.MessageGroupId } : {}),
      })),
    );
    metrics.count(metricNames.eventsFannedOut, event.Records.length - failed.length);
    return partialBatchResponse(failed);
  });
}
