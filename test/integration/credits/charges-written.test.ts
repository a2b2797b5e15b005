import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onChargesWritten } from '#local/work-signal.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { monthKey } from '#shared/credits/month.ts';
import { newId } from '#shared/kernel/ids.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { writtenSignals } from '#test/support/written-signals.ts';

/**
 * The local credit sweeper wakes up on the writes of charges (local/work-signal.ts `watchSweptWrites`, in front of
 * the DynamoDB stand-in), and runs again once they are older than its bound: every charge must be signalled, or one
 * a crash left open would wait for the sweep's idle pace. Settling or refunding it gives the sweeper no work.
 */
let env: Awaited<ReturnType<typeof startTestTable>>;
let ledger: DynamoCreditLedger;
let signals: ReturnType<typeof writtenSignals>;
beforeAll(async () => {
  env = await startTestTable();
  ledger = new DynamoCreditLedger(env.table);
  signals = writtenSignals(onChargesWritten);
});
afterAll(async () => {
  signals?.close();
  await env?.close();
});

describe('the charges-written signal', () => {
  it('is sent for each charge, the first of its month item and the later ones, and not for settling one', async () => {
    const account = { projectId: newId('prj'), monthlyAllowance: 10 };
    const at = new Date();
    const first = newId('chg');
    const heardFirst = await signals.of(() => ledger.charge(account, first, at), true);
    expect(heardFirst).toHaveLength(1);
    expect(heardFirst[0]).toBeGreaterThanOrEqual(at.getTime());
    expect(await signals.of(() => ledger.charge(account, newId('chg'), new Date()), true)).toHaveLength(1);
    const receipt = { projectId: account.projectId, month: monthKey(at), chargeId: first };
    let settled = false;
    expect(await signals.of(async () => (settled = await ledger.settle(receipt)), false)).toEqual([]);
    expect(settled).toBe(true);
  });
});
