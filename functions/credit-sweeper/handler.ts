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

/** Scheduled (every minute on AWS, every 5 s locally): refunds credits charged by requests that crashed. */
export const handler = workerFunction<unknown, { refunded: number }>(logger, metrics).handler(async () => {
  const refunded = await sweep();
  if (refunded > 0) logger.warn('refunded orphaned charges', { refunded });
  return { refunded };
});
