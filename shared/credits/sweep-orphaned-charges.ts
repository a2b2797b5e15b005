import type { CreditLedger } from './credit-ledger.ts';

/**
 * Refunds charges that a crash left open: a charge neither settled nor refunded `sweepAfterSeconds` after it was
 * made (longer than any request can run) can only belong to a request that died.
 */
export function makeSweepOrphanedCharges(deps: { credits: CreditLedger; sweepAfterSeconds: number; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  /** `budgetMs`: how long this run may keep draining; what is left waits for the next run. */
  return async function sweepOrphanedCharges(budgetMs?: number): Promise<number> {
    return deps.credits.sweep(new Date(now().getTime() - deps.sweepAfterSeconds * 1000), budgetMs);
  };
}
