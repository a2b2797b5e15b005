import { metricNames } from '../../contract/metrics.ts';
import type { Metrics } from '../../kernel/metrics.ts';
import type { CreditLedger } from '../credit-ledger.ts';

/**
 * The ledger, plus a count of bot credits charged, refunded after a failure, and refunded by the sweeper: what an
 * operator sees counted is what the ledger did (a charge refused or a refund already made counts nothing).
 */
export function meteredCreditLedger(ledger: CreditLedger, metrics: Metrics): CreditLedger {
  return {
    available: (account, at) => ledger.available(account, at),
    grant: (account, amount, at) => ledger.grant(account, amount, at),
    settle: (receipt) => ledger.settle(receipt),
    async charge(account, chargeId, at) {
      const outcome = await ledger.charge(account, chargeId, at);
      if (outcome.charged) metrics.count(metricNames.creditsCharged);
      return outcome;
    },
    async refund(receipt) {
      const refunded = await ledger.refund(receipt);
      if (refunded) metrics.count(metricNames.creditsRefunded);
      return refunded;
    },
    async sweep(openBefore, budgetMs) {
      const swept = await ledger.sweep(openBefore, budgetMs);
      if (swept > 0) metrics.count(metricNames.creditsSwept, swept);
      return swept;
    },
  };
}
