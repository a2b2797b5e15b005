import type { ChargeOutcome, ChargeReceipt, CreditAccount, CreditLedger } from '#shared/credits/index.ts';

/** An in-memory CreditLedger for use-case tests: one balance, and counts of what happened to each charge. */
export class MemoryCreditLedger implements CreditLedger {
  balance: number;
  readonly open = new Set<string>();
  charges = 0;
  refunds = 0;
  settles = 0;
  failRefund = false;
  failSettle = false;

  constructor(balance: number) {
    this.balance = balance;
  }
  async available(): Promise<number> {
    return this.balance;
  }
  async grant(_account: CreditAccount, amount: number): Promise<number> {
    this.balance += amount;
    return this.balance;
  }
  async charge(account: CreditAccount, chargeId: string): Promise<ChargeOutcome> {
    if (this.balance < 1) return { charged: false, reason: 'insufficient' };
    this.balance--;
    this.charges++;
    this.open.add(chargeId);
    return { charged: true, receipt: { projectId: account.projectId, month: '2026-11', chargeId } };
  }
  async refund(receipt: ChargeReceipt): Promise<boolean> {
    if (this.failRefund) throw new Error('table unreachable');
    if (!this.open.delete(receipt.chargeId)) return false;
    this.balance++;
    this.refunds++;
    return true;
  }
  async settle(receipt: ChargeReceipt): Promise<boolean> {
    if (this.failSettle) throw new Error('table unreachable');
    if (!this.open.delete(receipt.chargeId)) return false;
    this.settles++;
    return true;
  }
  async sweep(): Promise<number> {
    return 0;
  }
}
