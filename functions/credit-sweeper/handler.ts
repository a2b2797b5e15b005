import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { makeSweepOrphanedCharges } from '#shared/credits/sweep-orphaned-charges.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { meteredCreditLedger } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { workerFunction } from '#shared/http/worker.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('credit-sweeper');
const metrics = new PowertoolsMetrics('credit-sweeper');
const sweep = makeSweepOrphanedCharges({
  credits: meteredCreditLedger(new DynamoCreditLedger(dynamoTable(cfg)), metrics),
  sweepAfterSeconds: cfg.CREDIT_SWEEP_AFTER_SECONDS,
});

/** Time kept back from the function's timeout for the last writes and the answer. */
const MARGIN_MS = 10_000;

/**
 * Scheduled (every minute on AWS, every 5 s locally): refunds credits charged by requests that crashed, reading
 * every shard of the sweep in parallel and draining them within the run's time.
 */
export const handler = workerFunction<unknown, { refunded: number }>(logger, metrics).handler(
  async (_event, context) => {
    const refunded = await sweep(Math.max(1_000, context.getRemainingTimeInMillis() - MARGIN_MS));
    if (refunded > 0) logger.warn('refunded orphaned charges', { refunded });
    return { refunded };
  },
);
