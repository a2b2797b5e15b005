import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onChargesWritten } from '#local/work-signal.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { monthKey } from '#shared/credits/month.ts';
import { newId } from '#shared/kernel/ids.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * The local credit sweeper wakes up on the writes of charges (local/work-signal.ts `watchSweptWrites`, in front of
 * the DynamoDB stand-in), and runs again once they are older than its bound: every charge must be signalled, or one
 * a crash left open would wait for the sweep's idle pace. Settling or refunding it gives the sweeper no work.
 */
let env: Awaited<ReturnType<typeof startTestTable>>;
let ledger: DynamoCreditLedger;
const heard: number[] = [];
let listening: { close(): void };
beforeAll(async () => {
  env = await startTestTable();
  ledger = new DynamoCreditLedger(env.table);
  listening = onChargesWritten((at) => heard.push(at));
});
afterAll(async () => {
  listening?.close();
  await env?.close();
});

/** Runs `write`, then waits for a signal (up to 10 s: BroadcastChannel messages come late on a loaded machine). */
async function signalsOf(write: () => Promise<unknown>, expectOne: boolean): Promise<number[]> {
  // Only signals sent after this write began: a write of an earlier test file in the same process (the channel is
  // the process's) can be heard late, and must neither end the wait nor count as this write's.
  const from = Date.now();
  const mine = () => heard.filter((at) => at >= from);
  await write();
  const until = performance.now() + (expectOne ? 10_000 : 500);
  while (mine().length === 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  // A little more, for signals that must not come.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return mine();
}

describe('the charges-written signal', () => {
  it('is sent for each charge, the first of its month item and the later ones, and not for settling one', async () => {
    const account = { projectId: newId('prj'), monthlyAllowance: 10 };
    const at = new Date();
    const first = newId('chg');
    const heardFirst = await signalsOf(() => ledger.charge(account, first, at), true);
    expect(heardFirst).toHaveLength(1);
    expect(heardFirst[0]).toBeGreaterThanOrEqual(at.getTime());
    expect(await signalsOf(() => ledger.charge(account, newId('chg'), new Date()), true)).toHaveLength(1);
    const receipt = { projectId: account.projectId, month: monthKey(at), chargeId: first };
    let settled = false;
    expect(await signalsOf(async () => (settled = await ledger.settle(receipt)), false)).toEqual([]);
    expect(settled).toBe(true);
  });
});
