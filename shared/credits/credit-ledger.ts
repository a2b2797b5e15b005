/**
 * Monthly bot credits of a project. The month's balance = monthly allowance + grants - spent + refunds.
 *
 * A charge is keyed by a server-generated charge id and leaves a record until it is settled (the work succeeded)
 * or refunded (it failed). Charging the same id twice charges once; refunding twice refunds once; a charge left
 * open by a crash is refunded by the sweeper after a deadline.
 */
export interface CreditAccount {
  projectId: string;
  /** The project's monthly allowance; the month's balance starts from it. */
  monthlyAllowance: number;
}

export interface ChargeReceipt {
  projectId: string;
  month: string;
  chargeId: string;
}

export type ChargeOutcome = { charged: true; receipt: ChargeReceipt } | { charged: false; reason: 'insufficient' };

export interface CreditLedger {
  available(account: CreditAccount, at: Date): Promise<number>;
  grant(account: CreditAccount, amount: number, at: Date): Promise<number>;
  charge(account: CreditAccount, chargeId: string, at: Date): Promise<ChargeOutcome>;
  /** Gives the credit back unless the charge was already settled or refunded. True when this call refunded it. */
  refund(receipt: ChargeReceipt): Promise<boolean>;
  /** Closes the charge for good (the work succeeded). True when this call settled it. */
  settle(receipt: ChargeReceipt): Promise<boolean>;
  /**
   * Refunds every charge still open that was made before `openBefore`, within `budgetMs` (the rest on the next
   * call). Returns how many it refunded.
   */
  sweep(openBefore: Date, budgetMs?: number): Promise<number>;
}
