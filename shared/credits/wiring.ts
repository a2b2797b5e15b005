import type { Context } from 'aws-lambda';
import type { Metrics } from '../kernel/metrics.ts';
import type { MeteredPlatform, Platform } from '../kernel/platform.ts';
import { DynamoCreditLedger } from './adapters/dynamo-credit-ledger.ts';
import { meteredCreditLedger } from './adapters/metered-credit-ledger.ts';
import { usageHandlers } from './api/admin-routes.ts';
import type { CreditAccount, CreditLedger } from './credit-ledger.ts';
import { makeCreditUsage } from './credit-usage.ts';
import { creditsSettings } from './settings.ts';
import { makeSweepOrphanedCharges } from './sweep-orphaned-charges.ts';

/** Time the sweeper keeps back from the function's timeout for its last writes and its answer. */
const SWEEP_MARGIN_MS = 10_000;

/**
 * The deployment's credit ledger on the table. Where the function publishes metrics, credits charged, refunded and
 * swept are counted.
 */
export function wireCreditLedger(platform: Pick<Platform, 'table'> & { metrics?: Metrics }) {
  const ledger: CreditLedger = new DynamoCreditLedger(platform.table);
  return platform.metrics ? meteredCreditLedger(ledger, platform.metrics) : ledger;
}

/**
 * What serves the credit usage route (the console's chart). The account comes from the projects area (the project's
 * monthly allowance; an unknown project is its 404).
 */
export function wireCreditUsage(
  platform: Pick<Platform, 'table'>,
  deps: { accountOf(projectId: string): Promise<CreditAccount> },
) {
  const creditUsage = makeCreditUsage({ usage: new DynamoCreditLedger(platform.table) });
  return usageHandlers({ creditUsage, accountOf: deps.accountOf });
}

/**
 * The credit sweeper's run: refunds credits charged by requests that crashed (open longer than
 * CREDIT_SWEEP_AFTER_SECONDS), reading every shard of the sweep in parallel and draining them within the run's time.
 */
export function wireCreditSweeper(platform: MeteredPlatform) {
  const { logger } = platform;
  const sweep = makeSweepOrphanedCharges({
    credits: wireCreditLedger(platform),
    sweepAfterSeconds: creditsSettings.read().CREDIT_SWEEP_AFTER_SECONDS,
  });
  return async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const refunded = await sweep(Math.max(1_000, context.getRemainingTimeInMillis() - SWEEP_MARGIN_MS));
    if (refunded > 0) logger.warn('refunded orphaned charges', { refunded });
    return { refunded };
  };
}
