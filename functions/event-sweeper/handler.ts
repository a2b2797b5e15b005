import { wireEventSweeper } from '#shared/events/index.ts';
import { workerFunction } from '#shared/http/worker.ts';
import { platform as functionPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = functionPlatform('event-sweeper');

/**
 * Scheduled (every minute on AWS, every 5 s locally): publishes events their changes left unpublished (a crash),
 * draining for as long as the run's time allows.
 */
export const handler = workerFunction<unknown, { published: number }>(platform.logger).handler(
  wireEventSweeper(platform),
);
