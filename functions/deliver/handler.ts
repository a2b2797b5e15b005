import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config/config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { deliverFromConfig } from '#functions/_wiring/webhooks.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('deliver');
const deliver = deliverFromConfig(cfg, await secretBoxFromConfig(cfg), logger);

/**
 * `deliveries` queue → one HTTP attempt per job, all jobs of the batch at once. Jobs to retry later are postponed
 * in the queue and reported as batch item failures, so SQS keeps them until their next attempt.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failed = await deliver.deliverBatch(
    event.Records.map((r) => ({
      messageId: r.messageId,
      receiptHandle: r.receiptHandle,
      body: r.body,
      receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    })),
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
};
