import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoChannelPacer } from '#shared/messaging/adapters/dynamo-channel-pacer.ts';
import { paceSlots } from '#shared/messaging/volume/pace.ts';
import { busiestSecond } from '#test/support/busiest-second.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let db: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  db = await startTestTable();
});
afterAll(() => db?.close());

/** One send's admission alone. */
const admitOne = (
  pacer: DynamoChannelPacer,
  channelId: string,
  slot: number,
  windowMs: number,
  at: number,
  mine?: number,
) =>
  pacer.admit(channelId, windowMs, [{ slot, at, ...(mine === undefined ? {} : { mine }) }]).then((a) => a.answers[0]!);

describe('a channel pace in DynamoDB', () => {
  it('hands out consecutive instants and sequence numbers to concurrent reservations, none beyond the horizon', async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const now = Date.now();
    const starts = await Promise.all(Array.from({ length: 8 }, () => pacer.reserve('ch_pace', 3, 100, now, 2_000)));
    const granted = starts.flatMap((s) => ('at' in s ? [s] : [])).sort((a, b) => a.at - b.at);
    // 2 s of a 100 ms spacing hold 20 instants: groups of 3 start up to 1.9 s ahead, the rest are told later.
    expect(granted.length).toBeGreaterThanOrEqual(6);
    expect(granted).toEqual(granted.map((_, i) => ({ at: now + i * 300, seq: i * 3 })));
    for (const s of starts) if (!('at' in s)) expect(s.later).toBeGreaterThan(now + 2_000);
  });

  it('reserves for concurrent groups that find the channel idle in at most three writes each, reading nothing', async () => {
    const calls: string[] = [];
    const counted = {
      tableName: db.table.tableName,
      client: {
        send: (command: { constructor: { name: string } }, ...rest: unknown[]) => {
          calls.push(command.constructor.name);
          return (db.table.client.send as (...a: unknown[]) => unknown)(command, ...rest);
        },
      },
    } as unknown as typeof db.table;
    const pacer = new DynamoChannelPacer(counted);
    const now = Date.now();
    const starts = await Promise.all(Array.from({ length: 8 }, () => pacer.reserve('ch_race', 3, 100, now, 60_000)));
    expect(starts.map((s) => ('at' in s ? s.at : s.later)).sort()).toEqual(starts.map((_, i) => now + i * 300));
    // One wins the idle write; the others, refused both ways, take their places behind it at the next busy write.
    // Each loser read the item before it (7 reads here).
    expect(calls.filter((c) => c === 'GetCommand')).toEqual([]);
    expect(calls.length).toBeLessThanOrEqual(8 * 3);
  });

  it('lets one send through a slot per window, and says when a refused one may go', async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const t = Date.now();
    const first = await Promise.all(Array.from({ length: 5 }, () => admitOne(pacer, 'ch_slot', 0, 1000, t)));
    expect(first.filter((a) => a === true)).toHaveLength(1);
    expect(first.filter((a) => a !== true)).toEqual(Array.from({ length: 4 }, () => ({ retryAt: t + 1000 })));
    expect(await admitOne(pacer, 'ch_slot', 1, 1000, t + 10)).toBe(true);
    expect(await admitOne(pacer, 'ch_slot', 0, 1000, t + 999)).toEqual({ retryAt: t + 1000 });
    expect(await admitOne(pacer, 'ch_slot', 0, 1000, t + 1000)).toBe(true);
  });

  it('lets a send move its own stamp on a slot, and no other send take the slot early', async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const t = Date.now();
    expect(await admitOne(pacer, 'ch_move', 0, 1000, t)).toBe(true);
    // Another send, or one that names a stamp it does not hold, is refused until the window has passed.
    expect(await admitOne(pacer, 'ch_move', 0, 1000, t + 60, t - 5)).toEqual({ retryAt: t + 1000 });
    // The send that took it at `t` and came back late takes it again at t + 60.
    expect(await admitOne(pacer, 'ch_move', 0, 1000, t + 60, t)).toBe(true);
    expect(await admitOne(pacer, 'ch_move', 0, 1000, t + 1000)).toEqual({ retryAt: t + 1060 });
    expect(await admitOne(pacer, 'ch_move', 0, 1000, t + 1060)).toBe(true);
  });

  it("admits a worker's sends together, each answered on its own, across the items that keep the slots", async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const t = Date.now();
    // Ten consecutive slots that cross an item's end (40 slots an item), each departing 12.5 ms after the last.
    const group = Array.from({ length: 10 }, (_, i) => ({ slot: 35 + i, at: t + i * 12.5 }));
    expect((await pacer.admit('ch_group', 1000, group)).answers).toEqual(group.map(() => true));
    // A second group half over the same slots a moment later: the taken ones are told when they free, the free ones
    // on the same items are let through.
    const later = Array.from({ length: 10 }, (_, i) => ({ slot: 40 + i, at: t + 200 + i * 12.5 }));
    const { answers, stamps } = await pacer.admit('ch_group', 1000, later);
    expect(answers.slice(0, 5)).toEqual(group.slice(5).map((g) => ({ retryAt: g.at + 1000 })));
    expect(answers.slice(5)).toEqual(later.slice(5).map(() => true));
    // The answer shows every slot of the items it wrote: the first group's five on the second item, this one's five.
    expect([...stamps].sort((a, b) => a[0] - b[0])).toEqual([
      ...group.slice(5).map((g) => [g.slot, g.at]),
      ...later.slice(5).map((l) => [l.slot, l.at]),
    ]);
    // A window after its first use each slot is free again, and a send that took one moves its own stamp.
    const again = await pacer.admit(
      'ch_group',
      1000,
      group.map((g) => ({ slot: g.slot, at: g.at + 1000 })),
    );
    expect(again.answers).toEqual(group.map(() => true));
    expect(await admitOne(pacer, 'ch_group', 35, 1000, t + 1100, t + 1000)).toBe(true);
    expect(await admitOne(pacer, 'ch_group', 36, 1000, t + 1100, t + 1000)).toEqual({ retryAt: t + 2012.5 });
  });

  it('never lets a second hold more than the pace, and lateness does not add up from send to send', async () => {
    // 300 sends at 50 a second planned 20 ms apart on a loaded machine: every wake-up (at the instant, or when a
    // refused slot frees) comes 0-20 ms late, a few sends 1.5 s late. Each attempt is made on the store at its time.
    const pacer = new DynamoChannelPacer(db.table);
    const plan = paceSlots(50);
    const t0 = Date.now();
    const start = await pacer.reserve('ch_late', 300, plan.spacingMs, t0, 60_000);
    if (!('at' in start)) throw new Error('no reservation');
    let seed = 42;
    const late = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 21;
    };
    const attempts = Array.from({ length: 300 }, (_, i) => ({
      i,
      time: start.at + i * plan.spacingMs + late() + (i % 97 === 5 ? 1500 : 0),
    }));
    const sentAt: number[] = [];
    while (attempts.length) {
      attempts.sort((a, b) => a.time - b.time);
      const next = attempts.shift()!;
      const answer = await admitOne(pacer, 'ch_late', (start.seq + next.i) % plan.slots, plan.windowMs, next.time);
      if (answer === true) sentAt.push(next.time);
      else attempts.push({ i: next.i, time: answer.retryAt + late() });
    }
    expect(busiestSecond(sentAt)).toBeLessThanOrEqual(50);
    // 299 spacings (6 s) and about the latest wake-up, not every wake-up's lateness added up.
    expect(Math.max(...sentAt) - start.at).toBeLessThanOrEqual(299 * plan.spacingMs + 1500 + 200);
  }, 60_000);

  it("places batches queued at once one behind the other in the channel's queue, and starts again once it is empty", async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const t = Date.now();
    const starts = await Promise.all([pacer.plan('ch_plan', 100, 10, t), pacer.plan('ch_plan', 100, 10, t)]);
    expect(starts.sort((a, b) => a - b)).toEqual([t, t + 1000]);
    expect(await pacer.plan('ch_plan', 10, 10, t + 500)).toBe(t + 2000);
    // Once the queue's end has passed, a new batch starts at once.
    expect(await pacer.plan('ch_plan', 10, 10, t + 5000)).toBe(t + 5000);
  });
});
