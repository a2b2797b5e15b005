import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config/config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { fanoutFromConfig } from '#functions/_wiring/webhooks.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('fanout');
const fanout = fanoutFromConfig(cfg, await secretBoxFromConfig(cfg), logger);

/** `events` queue → one delivery job per applicable webhook on the `deliveries` queue (partial batch response). */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failed = await fanout.fanoutBatch(event.Records.map((r) => ({ messageId: r.messageId, body: r.body })));
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
};
