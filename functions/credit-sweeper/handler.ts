import { PowertoolsMetrics } from '#shared/adapters/powertools/powertools-metrics.ts';
import { config } from '#shared/config/config.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { makeSweepOrphanedCharges } from '#shared/credits/sweep.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { meteredCreditLedger } from '#functions/_wiring/metered.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { workerFunction } from '#functions/_wiring/worker.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('credit-sweeper');
const metrics = new PowertoolsMetrics('credit-sweeper');
const sweep = makeSweepOrphanedCharges({
  credits: meteredCreditLedger(new DynamoCreditLedger(dynamoTable(cfg)), metrics),
  sweepAfterSeconds: cfg.CREDIT_SWEEP_AFTER_SECONDS,
});

/** Scheduled (every minute on AWS, every 5 s locally): refunds credits charged by requests that crashed. */
export const handler = workerFunction<unknown, { refunded: number }>(logger, metrics).handler(async () => {
  const refunded = await sweep();
  if (refunded > 0) logger.warn('refunded orphaned charges', { refunded });
  return { refunded };
});
