import { failpoint } from '../kernel/failpoints.ts';
import { newId } from '../kernel/ids.ts';
import type { ChargeReceipt, CreditAccount, CreditLedger } from './credit-ledger.ts';
import { NoBotCreditsError } from './errors.ts';

/** One credit taken for one piece of work: closed once, by a settle (the work was delivered) or a refund. */
export interface Charge {
  readonly chargeId: string;
  /** `open` until the first of settle / refund; later calls of either do nothing. */
  readonly state: 'open' | 'settled' | 'refunded';
  /** The work was delivered: the credit is spent for good. */
  settle(): Promise<void>;
  /** The work failed (or the caller left before getting any of it): the credit goes back, exactly once. */
  refund(failure: unknown): Promise<void>;
}

export interface ChargingDeps {
  credits: Pick<CreditLedger, 'charge' | 'settle' | 'refund'>;
  log: { error(message: string, extra?: Record<string, unknown>): void };
  now?: () => number;
  newChargeId?: () => string;
}

/**
 * The charge lifecycle every paid route shares (completion, chat, responses, extract, embeddings; the rules a caller
 * sees: docs/reference/credits.md):
 * 1. charge 1 credit with a conditional write (402 ERR_NO_BOT_CREDITS when the month's balance is spent, nothing
 *    charged);
 * 2. do the work;
 * 3. settle when it was delivered, or refund on any failure, exactly once either way.
 *
 * A settle or refund that cannot be written is logged and left to the sweeper (`sweep-orphaned-charges.ts`), which
 * refunds a charge still open after CREDIT_SWEEP_AFTER_SECONDS: the caller's answer never fails because of it, and
 * the ledger's conditional writes keep it exactly once whoever gets there first.
 */
export function makeCharging(deps: ChargingDeps) {
  const now = deps.now ?? Date.now;
  const newChargeId = deps.newChargeId ?? (() => newId('chg'));

  return async function charge(account: CreditAccount, work: string): Promise<Charge> {
    const outcome = await deps.credits.charge(account, newChargeId(), new Date(now()));
    if (!outcome.charged) throw new NoBotCreditsError();
    failpoint('after-charge');
    return openCharge(outcome.receipt, work);
  };

  function openCharge(receipt: ChargeReceipt, work: string): Charge {
    let state: Charge['state'] = 'open';
    return {
      chargeId: receipt.chargeId,
      get state() {
        return state;
      },
      async settle() {
        if (state !== 'open') return;
        state = 'settled';
        try {
          await deps.credits.settle(receipt);
        } catch (cause) {
          // The work exists and the caller gets it. The charge stays open and the sweeper will refund it later, so
          // this one may end up free: logged loudly, never worth failing a request that already succeeded.
          deps.log.error(`${work} charge not settled`, { chargeId: receipt.chargeId, cause: String(cause) });
        }
      },
      async refund(failure) {
        if (state !== 'open') return;
        state = 'refunded';
        try {
          await deps.credits.refund(receipt);
          failpoint('after-refund');
        } catch (cause) {
          // The charge stays open and the sweeper refunds it after CREDIT_SWEEP_AFTER_SECONDS: still exactly once.
          deps.log.error(`${work} refund failed; left to the sweeper`, {
            chargeId: receipt.chargeId,
            failure: String(failure),
            cause: String(cause),
          });
        }
      },
    };
  }
}

export type ChargeCredit = ReturnType<typeof makeCharging>;
