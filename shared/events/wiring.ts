import type { Context } from 'aws-lambda';
import { sqsClient } from '../kernel/aws/sqs-client.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { Platform } from '../kernel/platform.ts';
import { DynamoUnpublishedEvents } from './adapters/dynamo-outbox.ts';
import { SqsEventQueue } from './adapters/sqs-event-queue.ts';
import { eventsSettings } from './settings.ts';
import { makeSweepUnpublishedEvents } from './sweep-unpublished.ts';

/**
 * What a sweep run leaves itself at the end: a page under way finishes (one query, one read, its sends and clears),
 * and a run draining a backlog stays under the duration alarm's share of the timeout (80 %), which is for a slow
 * dependency.
 */
const SWEEP_MARGIN_MS = 20_000;

/**
 * The event sweeper's run: publishes events their changes left unpublished (a crash) once they are older than
 * EVENT_SWEEP_AFTER_SECONDS, draining for as long as the run's time allows.
 */
export function wireEventSweeper(platform: Pick<Platform, 'cfg' | 'logger' | 'table'>) {
  const { cfg, logger } = platform;
  const sweep = makeSweepUnpublishedEvents({
    outbox: new DynamoUnpublishedEvents(platform.table),
    // A backlog goes out in batches of 10, several calls at once (the shards are read in parallel).
    queue: new SqsEventQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_EVENTS'), 16),
    sweepAfterMs: eventsSettings.read().EVENT_SWEEP_AFTER_SECONDS * 1000,
    log: { warn: (message, extra) => logger.warn(message, extra ?? {}) },
  });
  return async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => ({
    published: await sweep(Math.max(1_000, context.getRemainingTimeInMillis() - SWEEP_MARGIN_MS)),
  });
}
