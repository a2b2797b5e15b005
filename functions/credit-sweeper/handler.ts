import { config } from '#shared/config/config.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { makeSweepOrphanedCharges } from '#shared/credits/sweep.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('credit-sweeper');
const sweep = makeSweepOrphanedCharges({
  credits: new DynamoCreditLedger(dynamoTable(cfg)),
  sweepAfterSeconds: cfg.CREDIT_SWEEP_AFTER_SECONDS,
});

/** Scheduled (every minute on AWS, every 5 s locally): refunds credits charged by requests that crashed. */
export const handler = async (): Promise<{ refunded: number }> => {
  const refunded = await sweep();
  if (refunded > 0) logger.warn('refunded orphaned charges', { refunded });
  return { refunded };
};
