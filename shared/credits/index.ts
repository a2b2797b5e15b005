/**
 * Credits: monthly bot credits per project: the ledger (charge, settle, refund exactly once), the charge lifecycle
 * every paid route shares, the month's usage and its route, and the sweep of charges a crash left open. The only
 * way into the area from outside it.
 */
export { type Charge, makeCharging } from './charge.ts';
export type { ChargeOutcome, ChargeReceipt, CreditAccount, CreditLedger } from './credit-ledger.ts';
export { NoBotCreditsError } from './errors.ts';
export { monthKey, monthLabel } from './month.ts';
export { DynamoCreditLedger } from './adapters/dynamo-credit-ledger.ts';
export { meteredCreditLedger } from './adapters/metered-credit-ledger.ts';
export { usageRouteDocs, usageRoutes } from './api/admin-routes.ts';
export { botCredits, botCreditUsage } from './api/schemas.ts';
export { creditsSettings } from './settings.ts';
export { wireCreditLedger, wireCreditSweeper, wireCreditUsage } from './wiring.ts';
