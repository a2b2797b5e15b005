import { monthLabel } from './month.ts';
import type { CreditAccount } from './credit-ledger.ts';

/** One UTC day of the month: credits charged and credits refunded that day (net use = charged - refunded). */
export interface CreditDay {
  day: number;
  charged: number;
  refunded: number;
}

/** A month's credit use so far: the allowance it started from, grants, the balance left and the days up to today. */
export interface CreditUsage {
  allowance: number;
  granted: number;
  available: number;
  days: CreditDay[];
}

/** Reads the per-day counters the ledger keeps on the month's item (no scan: one GetItem). */
export interface CreditUsageReader {
  usage(account: CreditAccount, at: Date): Promise<CreditUsage>;
}

/**
 * This month's bot credit use for the console's chart: the balance, the allowance, grants and, per UTC day up to
 * today, credits charged and refunded (from the counters each charge and refund adds to the month's item).
 */
export function makeCreditUsage(deps: { usage: CreditUsageReader; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    /** The account's use this month; the caller resolved the account (the projects area: its allowance). */
    async thisMonth(account: CreditAccount) {
      const at = now();
      const usage = await deps.usage.usage(account, at);
      return { month: monthLabel(at), ...usage, available: Math.max(0, usage.available) };
    },
  };
}

export type CreditUsageReport = ReturnType<typeof makeCreditUsage>;
