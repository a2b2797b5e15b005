import { wireCreditSweeper } from '#shared/credits/index.ts';
import { workerFunction } from '#shared/http/worker.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('credit-sweeper');
const { logger, metrics } = platform;

/**
 * Scheduled (every minute on AWS, every 5 s locally): refunds credits charged by requests that crashed, reading
 * every shard of the sweep in parallel and draining them within the run's time.
 */
export const handler = workerFunction<unknown, { refunded: number }>(logger, metrics).handler(
  wireCreditSweeper(platform),
);
