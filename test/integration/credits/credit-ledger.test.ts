import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import type { CreditAccount } from '#shared/credits/credit-ledger.ts';
import { newId } from '#shared/kernel/ids.ts';
import { readItem, updateItem } from '#shared/kernel/aws/dynamo-table.ts';
import { backgroundIndex, keys, workIndex } from '#shared/contract/keys.ts';
import { monthKey } from '#shared/credits/month.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
let ledger: DynamoCreditLedger;
beforeAll(async () => {
  env = await startTestTable();
  ledger = new DynamoCreditLedger(env.table);
});
afterAll(async () => env?.close());

const account = (monthlyAllowance: number): CreditAccount => ({ projectId: newId('prj'), monthlyAllowance });
const at = new Date('2026-11-21T10:00:00Z');

describe('DynamoCreditLedger against dynalite', () => {
  it('N concurrent charges against a balance of B succeed exactly min(N, B) times and never go below 0', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 30 }),
        async (allowance, granted, n) => {
          const acct = account(allowance);
          if (granted > 0) await ledger.grant(acct, granted, at);
          const balance = allowance + granted;
          const outcomes = await Promise.all(Array.from({ length: n }, () => ledger.charge(acct, newId('chg'), at)));
          const charged = outcomes.filter((o) => o.charged).length;
          expect(charged).toBe(Math.min(n, balance));
          expect(await ledger.available(acct, at)).toBe(balance - charged);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('charging the same charge id twice charges once (a retried write)', async () => {
    const acct = account(5);
    const id = newId('chg');
    const [a, b] = await Promise.all([ledger.charge(acct, id, at), ledger.charge(acct, id, at)]);
    expect(a.charged && b.charged).toBe(true);
    expect(await ledger.available(acct, at)).toBe(4);
  });

  it('refunds exactly once, and never after a settle', async () => {
    const acct = account(3);
    const first = await ledger.charge(acct, newId('chg'), at);
    const second = await ledger.charge(acct, newId('chg'), at);
    if (!first.charged || !second.charged) throw new Error('charge failed');
    const refunds = await Promise.all(Array.from({ length: 10 }, () => ledger.refund(first.receipt)));
    expect(refunds.filter(Boolean)).toHaveLength(1);
    expect(await ledger.settle(second.receipt)).toBe(true);
    expect(await ledger.refund(second.receipt)).toBe(false);
    expect(await ledger.settle(second.receipt)).toBe(false);
    expect(await ledger.available(acct, at)).toBe(2);
  });

  it('a month with no allowance and no grant refuses to charge', async () => {
    const acct = account(0);
    expect(await ledger.charge(acct, newId('chg'), at)).toEqual({ charged: false, reason: 'insufficient' });
    expect(await ledger.available(acct, at)).toBe(0);
  });

  it('each UTC month starts again from the allowance', async () => {
    const acct = account(2);
    await ledger.charge(acct, newId('chg'), new Date('2026-10-31T23:59:59Z'));
    expect(await ledger.available(acct, new Date('2026-10-31T23:59:59Z'))).toBe(1);
    expect(await ledger.available(acct, new Date('2026-11-01T00:00:00Z'))).toBe(2);
  });

  it('the sweeper refunds charges left open past the deadline, and only those', async () => {
    const acct = account(10);
    const old = await ledger.charge(acct, newId('chg'), new Date(at.getTime() - 20 * 60_000));
    const oldSettled = await ledger.charge(acct, newId('chg'), new Date(at.getTime() - 20 * 60_000));
    const recent = await ledger.charge(acct, newId('chg'), at);
    if (!old.charged || !oldSettled.charged || !recent.charged) throw new Error('charge failed');
    await ledger.settle(oldSettled.receipt);
    expect(await ledger.available(acct, at)).toBe(7);
    const refunded = await ledger.sweep(new Date(at.getTime() - 15 * 60_000));
    expect(refunded).toBeGreaterThanOrEqual(1);
    expect(await ledger.available(acct, at)).toBe(8);
    // The open recent charge is swept later, once it is old enough; a refund by the request itself then wins.
    expect(await ledger.refund(old.receipt)).toBe(false);
    await ledger.sweep(new Date(at.getTime() + 60_000));
    expect(await ledger.available(acct, at)).toBe(9);
    expect(await ledger.refund(recent.receipt)).toBe(false);
  });

  it('random interleavings of charge, refund, settle and grant keep the balance equal to the model and never negative', async () => {
    type Op =
      | { kind: 'charge' }
      | { kind: 'refund'; i: number }
      | { kind: 'settle'; i: number }
      | { kind: 'grant'; amount: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.constant({ kind: 'charge' as const }),
      fc.record({ kind: fc.constant('refund' as const), i: fc.nat(20) }),
      fc.record({ kind: fc.constant('settle' as const), i: fc.nat(20) }),
      fc.record({ kind: fc.constant('grant' as const), amount: fc.integer({ min: 1, max: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), fc.array(op, { maxLength: 25 }), async (allowance, ops) => {
        const acct = account(allowance);
        let model = allowance;
        const receipts: { receipt: { projectId: string; month: string; chargeId: string }; open: boolean }[] = [];
        for (const o of ops) {
          if (o.kind === 'charge') {
            const out = await ledger.charge(acct, newId('chg'), at);
            expect(out.charged).toBe(model >= 1);
            if (out.charged) {
              model -= 1;
              receipts.push({ receipt: out.receipt, open: true });
            }
          } else if (o.kind === 'grant') {
            model += o.amount;
            expect(await ledger.grant(acct, o.amount, at)).toBe(model);
          } else if (receipts.length) {
            const r = receipts[o.i % receipts.length]!;
            const done = o.kind === 'refund' ? await ledger.refund(r.receipt) : await ledger.settle(r.receipt);
            expect(done).toBe(r.open);
            if (done && o.kind === 'refund') model += 1;
            r.open = false;
          }
          // What the ledger holds after every step: the model's balance, never below zero.
          const available = await ledger.available(acct, at);
          expect(available).toBe(model);
          expect(available).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 20 },
    );
  });
});

describe('the credit sweep, over the shards of the work index', () => {
  /** Each test's charges at their own time, so a sweep's cutoff reaches them and nothing of the other tests. */
  let clock = Date.parse('2026-12-02T00:00:00Z');
  const tick = () => {
    clock += 3_600_000;
    return new Date(clock);
  };

  it('finds open charges of many projects across its shards and refunds each once, with two sweeps at once', async () => {
    const when = tick();
    const accounts = Array.from({ length: 40 }, () => account(3));
    const open: number[] = [];
    await Promise.all(
      accounts.map(async (acct, i) => {
        const a = await ledger.charge(acct, newId('chg'), when);
        const b = await ledger.charge(acct, newId('chg'), when);
        if (!a.charged || !b.charged) throw new Error('charge failed');
        if (i % 2) await ledger.settle(a.receipt);
        open[i] = i % 2 ? 1 : 2;
      }),
    );
    const shards = new Set(accounts.map((a) => workIndex.creditSweepPartitionOf(a.projectId)));
    expect(shards.size).toBeGreaterThan(8);
    const cutoff = new Date(when.getTime() + 1);
    const [first, second] = await Promise.all([ledger.sweep(cutoff), ledger.sweep(cutoff)]);
    expect(first + second).toBeGreaterThanOrEqual(open.reduce((a, b) => a + b, 0));
    for (const [i, acct] of accounts.entries()) expect(await ledger.available(acct, when)).toBe(i % 2 ? 2 : 3);
    // Nothing of theirs is left to refund, and their entries are gone from the index.
    for (const acct of accounts) {
      const item = await readItem(env.table, keys.credits(acct.projectId, monthKey(when)));
      expect(item?.[workIndex.partitionKey]).toBeUndefined();
    }
  });

  it('stops at its time budget and leaves the rest to the next run', async () => {
    const when = tick();
    const acct = account(2);
    await ledger.charge(acct, newId('chg'), when);
    expect(await ledger.sweep(new Date(when.getTime() + 1), 0)).toBe(0);
    expect(await ledger.available(acct, when)).toBe(1);
    expect(await ledger.sweep(new Date(when.getTime() + 1))).toBeGreaterThanOrEqual(1);
    expect(await ledger.available(acct, when)).toBe(2);
  });

  it('refunds many open charges of one item in few writes, each once', async () => {
    const when = tick();
    const acct = account(200);
    const receipts = [];
    for (let i = 0; i < 120; i++) {
      const out = await ledger.charge(acct, newId('chg'), when);
      if (!out.charged) throw new Error('charge failed');
      receipts.push(out.receipt);
    }
    await ledger.settle(receipts[7]!);
    expect(await ledger.sweep(new Date(when.getTime() + 1))).toBeGreaterThanOrEqual(119);
    expect(await ledger.available(acct, when)).toBe(199);
    for (const r of receipts) expect(await ledger.refund(r)).toBe(false);
  });

  it('an item of the previous layout (one index key for every project) is swept and moved off that key', async () => {
    const when = tick();
    const acct = account(4);
    const out = await ledger.charge(acct, newId('chg'), when);
    if (!out.charged) throw new Error('charge failed');
    const key = keys.credits(acct.projectId, monthKey(when));
    await updateItem(env.table, {
      Key: key,
      UpdateExpression: 'SET #op = :op, #os = :os REMOVE #np, #ns',
      ExpressionAttributeNames: {
        '#op': backgroundIndex.partitionKey,
        '#os': backgroundIndex.sortKey,
        '#np': workIndex.partitionKey,
        '#ns': workIndex.sortKey,
      },
      ExpressionAttributeValues: {
        ':op': backgroundIndex.legacyCreditSweepPartition,
        ':os': backgroundIndex.sortableMs(when.getTime()),
      },
    });
    expect(await ledger.sweep(new Date(when.getTime() + 1))).toBeGreaterThanOrEqual(1);
    expect(await ledger.available(acct, when)).toBe(4);
    const item = await readItem(env.table, key);
    expect(item?.[backgroundIndex.partitionKey]).toBeUndefined();
    expect(item?.[workIndex.partitionKey]).toBeUndefined();
  });

  it("later charges leave the item's index keys as they are: the keys-only index is written when it joins, not per charge", async () => {
    const acct = account(5);
    const first = tick();
    await ledger.charge(acct, newId('chg'), first);
    const key = keys.credits(acct.projectId, monthKey(first));
    const entry = async () => {
      const item = await readItem(env.table, key);
      return [item?.[workIndex.partitionKey], item?.[workIndex.sortKey]];
    };
    const joined = await entry();
    expect(joined).toEqual([workIndex.creditSweepPartitionOf(acct.projectId), workIndex.creditSweepSortKey(+first)]);
    await ledger.charge(acct, newId('chg'), new Date(first.getTime() + 5_000));
    await ledger.charge(acct, newId('chg'), new Date(first.getTime() + 9_000));
    expect(await entry()).toEqual(joined);
  });

  it('random interleavings of charge, refund, settle and sweep never refund twice and keep the balance on the model', async () => {
    type Op = { kind: 'charge' } | { kind: 'refund' | 'settle'; i: number } | { kind: 'sweep' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'charge' as const }) },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constantFrom('refund' as const, 'settle' as const), i: fc.nat(30) }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.array(op, { maxLength: 20 }), async (allowance, ops) => {
        const when = tick();
        const acct = account(allowance);
        let model = allowance;
        const receipts: { receipt: { projectId: string; month: string; chargeId: string }; open: boolean }[] = [];
        for (const o of ops) {
          if (o.kind === 'charge') {
            const out = await ledger.charge(acct, newId('chg'), when);
            expect(out.charged).toBe(model >= 1);
            if (out.charged) {
              model -= 1;
              receipts.push({ receipt: out.receipt, open: true });
            }
          } else if (o.kind === 'sweep') {
            // Every charge of this test is old enough: the sweep closes them all, and the request's own refund or
            // settle then finds nothing to close.
            await Promise.all([ledger.sweep(new Date(when.getTime() + 1)), ledger.sweep(new Date(when.getTime() + 1))]);
            for (const r of receipts.filter((x) => x.open)) {
              model += 1;
              r.open = false;
            }
          } else if (receipts.length) {
            const r = receipts[o.i % receipts.length]!;
            const done = o.kind === 'refund' ? await ledger.refund(r.receipt) : await ledger.settle(r.receipt);
            expect(done).toBe(r.open);
            if (done && o.kind === 'refund') model += 1;
            r.open = false;
          }
          expect(model).toBeGreaterThanOrEqual(0);
          expect(await ledger.available(acct, when)).toBe(model);
        }
      }),
      { numRuns: 12 },
    );
  });
});
