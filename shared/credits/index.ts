/** Credits: monthly bot credits per project: the ledger port, the charge lifecycle, usage, and the orphaned-charge sweep. */
export { type Charge, type ChargeCredit, type ChargingDeps, makeCharging } from './charge.ts';
export type { ChargeOutcome, ChargeReceipt, CreditAccount, CreditLedger } from './credit-ledger.ts';
export {
  type CreditDay,
  type CreditUsage,
  type CreditUsageReader,
  type CreditUsageReport,
  makeCreditUsage,
} from './credit-usage.ts';
export { NoBotCreditsError } from './errors.ts';
export { dayOfMonthFor, monthKey, monthLabel } from './month.ts';
export { makeSweepOrphanedCharges } from './sweep-orphaned-charges.ts';
