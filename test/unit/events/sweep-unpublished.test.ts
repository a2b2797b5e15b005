import { describe, expect, it } from 'vitest';
import type { EventMessage } from '#shared/events/event-message.ts';
import {
  makeSweepUnpublishedEvents,
  type StaleItem,
  type StalePage,
  type UnpublishedEvents,
} from '#shared/events/sweep-unpublished.ts';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

/** Marks in memory, in shards, each listed oldest first and read a page at a time like the index. */
class MemoryOutbox implements UnpublishedEvents {
  readonly shards: string[];
  readonly items = new Map<string, { shard: string; at: number; writtenAt: number; marks: Map<string, string> }>();
  queries = 0;
  constructor(shards: number) {
    this.shards = Array.from({ length: shards }, (_, n) => `S${n}`);
  }
  add(shard: number, pk: string, at: number, eventIds: string[], writtenAt = at) {
    const marks = new Map(eventIds.map((id) => [id, JSON.stringify({ v: 1, eventId: id, acceptedAt: at })]));
    this.items.set(pk, { shard: `S${shard}`, at, writtenAt, marks });
  }
  async stale(shard: string, before: number, limit: number, after?: Record<string, unknown>): Promise<StalePage> {
    this.queries++;
    const listed = [...this.items.entries()]
      .filter(([, item]) => item.shard === shard && item.at < before && item.marks.size)
      .sort(([a, x], [b, y]) => x.at - y.at || (a < b ? -1 : 1))
      .map(([pk]) => pk);
    const from = after ? listed.indexOf(String(after.pk)) + 1 : 0;
    const page = listed.slice(from, from + limit);
    const items: StaleItem[] = page.map((pk) => {
      const item = this.items.get(pk)!;
      return {
        key: { pk, sk: 'X' },
        marks: [...item.marks].map(([eventId, message]) => ({ eventId, message })),
        writtenAt: item.writtenAt,
      };
    });
    return { items, ...(from + limit < listed.length ? { next: { pk: page.at(-1) } } : {}) };
  }
  async clear(key: { pk: string }, eventId: string) {
    this.items.get(key.pk)?.marks.delete(eventId);
  }
  pending() {
    return [...this.items.values()].reduce((n, item) => n + item.marks.size, 0);
  }
}

class MemoryQueue {
  sent: string[] = [];
  refuse = new Set<string>();
  async send(message: EventMessage) {
    if (this.refuse.has(message.eventId)) throw new Error('SQS refused the event: Throttling');
    this.sent.push(message.eventId);
  }
}

const quiet = { warn: () => {} };

describe('the event sweep', () => {
  it('drains a backlog of many pages in every shard in one run, each event published once, then cleared', async () => {
    const outbox = new MemoryOutbox(8);
    const expected: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const ids = i % 7 === 0 ? [`evt_${i}a`, `evt_${i}b`] : [`evt_${i}`];
      outbox.add(i % 8, `P${i}`, T0 - 120_000 + i, ids);
      expected.push(...ids);
    }
    const queue = new MemoryQueue();
    const sweep = makeSweepUnpublishedEvents({
      outbox,
      queue,
      sweepAfterMs: 30_000,
      log: quiet,
      now: () => T0,
      batch: 50,
    });
    expect(await sweep()).toBe(expected.length);
    expect([...queue.sent].sort()).toEqual([...expected].sort());
    expect(outbox.pending()).toBe(0);
    // Page after page (2,000 items, 50 a page, 8 shards), not one page a run.
    expect(outbox.queries).toBeGreaterThanOrEqual(40);
    expect(await sweep()).toBe(0);
  });

  it('publishes each shard oldest first, so one conversation (one shard) keeps its order', async () => {
    const outbox = new MemoryOutbox(4);
    for (let i = 0; i < 300; i++) outbox.add(i % 4, `P${i}`, T0 - 100_000 + i, [`evt_${String(i).padStart(4, '0')}`]);
    const queue = new MemoryQueue();
    await makeSweepUnpublishedEvents({ outbox, queue, sweepAfterMs: 0, log: quiet, now: () => T0, batch: 25 })();
    for (let shard = 0; shard < 4; shard++) {
      const ofShard = queue.sent.filter((id) => Number(id.slice(4)) % 4 === shard);
      expect(ofShard).toEqual([...ofShard].sort());
    }
  });

  it('stops reading when its time is up and the next run goes on where marks remain', async () => {
    const outbox = new MemoryOutbox(2);
    for (let i = 0; i < 1_000; i++) outbox.add(i % 2, `P${i}`, T0 - 100_000 + i, [`evt_${i}`]);
    let clock = T0;
    const queue = new MemoryQueue();
    // Each page takes 100 ms of the run's time.
    const timed: UnpublishedEvents = {
      shards: outbox.shards,
      stale: async (...args) => {
        clock += 100;
        return outbox.stale(...args);
      },
      clear: (key, id) => outbox.clear(key, id),
    };
    const sweep = makeSweepUnpublishedEvents({
      outbox: timed,
      queue,
      sweepAfterMs: 0,
      log: quiet,
      now: () => clock,
      batch: 20,
      budgetMs: 1_000,
    });
    const first = await sweep();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(1_000);
    expect(outbox.pending()).toBe(1_000 - first);
    let runs = 1;
    while (outbox.pending() && runs < 100) {
      await sweep();
      runs++;
    }
    expect(outbox.pending()).toBe(0);
    expect(new Set(queue.sent).size).toBe(1_000);
    expect(queue.sent).toHaveLength(1_000);
  });

  it('an event the queue refuses keeps its mark for the next run; the run fails so it is seen', async () => {
    const outbox = new MemoryOutbox(2);
    for (let i = 0; i < 10; i++) outbox.add(i % 2, `P${i}`, T0 - 100_000 + i, [`evt_${i}`]);
    const queue = new MemoryQueue();
    queue.refuse.add('evt_4');
    const sweep = makeSweepUnpublishedEvents({ outbox, queue, sweepAfterMs: 0, log: quiet, now: () => T0 });
    await expect(sweep()).rejects.toThrow(/refused 1 events/);
    expect(queue.sent).not.toContain('evt_4');
    expect(outbox.pending()).toBe(1);
    queue.refuse.clear();
    expect(await sweep()).toBe(1);
    expect(queue.sent.filter((id) => id === 'evt_4')).toHaveLength(1);
    expect(queue.sent).toHaveLength(10);
  });

  it('leaves an item whose latest mark is recent to the change that wrote it, however old its first mark', async () => {
    const outbox = new MemoryOutbox(1);
    outbox.add(0, 'P1', T0 - 100_000, ['evt_old', 'evt_new'], T0 - 1_000);
    outbox.add(0, 'P2', T0 - 100_000, ['evt_other'], T0 - 90_000);
    const queue = new MemoryQueue();
    const sweep = makeSweepUnpublishedEvents({ outbox, queue, sweepAfterMs: 30_000, log: quiet, now: () => T0 });
    expect(await sweep()).toBe(1);
    expect(queue.sent).toEqual(['evt_other']);
  });
});
