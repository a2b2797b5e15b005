import { DynamoUnpublishedEvents } from '#shared/events/adapters/dynamo-outbox.ts';
import { SqsEventQueue } from '#shared/events/adapters/sqs-event-queue.ts';
import { makeSweepUnpublishedEvents } from '#shared/events/index.ts';
import { workerFunction } from '#shared/http/worker.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('event-sweeper');
const sweep = makeSweepUnpublishedEvents({
  outbox: new DynamoUnpublishedEvents(dynamoTable(cfg)),
  // A backlog goes out in batches of 10, several calls at once (the shards are read in parallel).
  queue: new SqsEventQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_EVENTS'), 16),
  sweepAfterMs: cfg.EVENT_SWEEP_AFTER_SECONDS * 1000,
  log: { warn: (message, extra) => logger.warn(message, extra ?? {}) },
});

/**
 * What a run leaves itself at the end: a page under way finishes (one query, one read, its sends and clears), and a
 * run draining a backlog stays under the duration alarm's share of the timeout (80 %), which is for a slow dependency.
 */
const MARGIN_MS = 20_000;

/**
 * Scheduled (every minute on AWS, every 5 s locally): publishes events their changes left unpublished (a crash),
 * draining for as long as the run's time allows.
 */
export const handler = workerFunction<unknown, { published: number }>(logger).handler(async (_event, context) => ({
  published: await sweep(Math.max(1_000, context.getRemainingTimeInMillis() - MARGIN_MS)),
}));
