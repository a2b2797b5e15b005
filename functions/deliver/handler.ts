import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config/config.ts';
import { secretBoxFromConfig } from '#shared/integrations/secret-box-from-config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { deliverFromConfig } from '#shared/webhooks/from-config.ts';
import { isRecoverMessage } from '#shared/webhooks/recover.ts';
import { recoverFromConfig } from './recover-wiring.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('deliver');
const secrets = await secretBoxFromConfig(cfg);
const deliver = deliverFromConfig(cfg, secrets, logger);
const recover = recoverFromConfig(cfg, { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME }, secrets);

/**
 * `deliveries` queue → one HTTP attempt per job, all jobs of the batch at once. Jobs to retry later are postponed
 * in the queue and reported as batch item failures, so SQS keeps them until their next attempt.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  // A recover too large for its request goes on here, one page set per message (shared/webhooks/recover.ts).
  const recovering = event.Records.filter((r) => isRecoverMessage(parseOrNull(r.body)));
  const recoverFailed = await Promise.all(
    recovering.map(async (r) => {
      try {
        await recover.resume(JSON.parse(r.body));
        return undefined;
      } catch (error) {
        logger.error('recover continuation failed; it will be received again', { error: String(error) });
        return r.messageId;
      }
    }),
  );
  const jobs = event.Records.filter((r) => !recovering.includes(r));
  const failed = await deliver.deliverBatch(
    jobs.map((r) => ({
      messageId: r.messageId,
      receiptHandle: r.receiptHandle,
      body: r.body,
      receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    })),
  );
  return {
    batchItemFailures: [...failed, ...recoverFailed.filter((id) => id !== undefined)].map((itemIdentifier) => ({
      itemIdentifier,
    })),
  };
};

function parseOrNull(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
