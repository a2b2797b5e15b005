import { describe, expect, it } from 'vitest';
import { foundNothing } from '#local/scheduler.ts';
import { DUE_PARTITIONS } from '#shared/contract/keys.ts';
import type { DueEntry } from '#shared/messaging/volume/deferred.ts';
import { FIRST_RUN_LOOK_BACK_MS, makeSweepDue, SWEEP_PAGE } from '#shared/messaging/volume/sweep-due.ts';

const MINUTE = 60_000;
const LOOKAHEAD_MS = 3 * MINUTE;

/** A store of due entries that counts the partitions a sweep reads (each minute's `DUE_PARTITIONS`). */
function store(entries: DueEntry[]) {
  const state = { cursor: undefined as number | undefined, partitionsRead: 0, removed: 0 };
  const removed = new Set<string>();
  return {
    state,
    async due(fromMs: number, untilMs: number, limit: number) {
      const first = Math.floor(fromMs / MINUTE) * MINUTE;
      state.partitionsRead += (Math.floor((untilMs - first) / MINUTE) + 1) * DUE_PARTITIONS;
      return entries
        .filter((e) => Date.parse(e.dueAt) >= first && Date.parse(e.dueAt) <= untilMs)
        .filter((e) => !removed.has(e.messageId))
        .slice(0, limit);
    },
    async removeDue(done: readonly DueEntry[]) {
      for (const e of done) removed.add(e.messageId);
      state.removed += done.length;
    },
    async sweepCursor() {
      return state.cursor;
    },
    async setSweepCursor(minute: number) {
      state.cursor = minute;
    },
  };
}

describe('the due sweep', () => {
  it("looks back a couple of minutes on the service's first run, not ten, and still finds what is waiting", async () => {
    const at = Date.parse('2026-12-02T05:30:20Z');
    const waiting = { messageId: 'msg_waiting', dueAt: new Date(at - 90_000).toISOString() };
    const s = store([waiting]);
    const enqueued: string[] = [];
    const sweep = makeSweepDue({
      store: s,
      queue: { enqueue: async (jobs) => void enqueued.push(...jobs.map((j) => j.job.messageId)) },
      lookaheadMs: LOOKAHEAD_MS,
      onBackgroundError: (what, cause) => {
        throw new Error(`${what}: ${String(cause)}`);
      },
      now: () => new Date(at),
    });
    expect(await sweep()).toEqual({ enqueued: 1 });
    expect(enqueued).toEqual(['msg_waiting']);
    // From two minutes back (rounded down to its minute) to the lookahead: 6 minutes of partitions, not 14.
    const minutes = (FIRST_RUN_LOOK_BACK_MS + LOOKAHEAD_MS) / MINUTE + 1;
    expect(s.state.partitionsRead).toBe(minutes * DUE_PARTITIONS);
    expect(s.state.partitionsRead).toBeLessThanOrEqual(6 * DUE_PARTITIONS);
    // The cursor stays a minute behind: the next run reads from there.
    expect(s.state.cursor).toBe(Date.parse('2026-12-02T05:29:00Z'));
  });

  const backlog = (at: number, count: number): DueEntry[] =>
    Array.from({ length: count }, (_, i) => ({ messageId: `msg_${i}`, dueAt: new Date(at + 30_000).toISOString() }));
  const sweeper = (s: ReturnType<typeof store>, enqueued: string[], now: () => Date, budgetMs?: number) =>
    makeSweepDue({
      store: s,
      queue: { enqueue: async (jobs) => void enqueued.push(...jobs.map((j) => j.job.messageId)) },
      lookaheadMs: LOOKAHEAD_MS,
      onBackgroundError: (what, cause) => {
        throw new Error(`${what}: ${String(cause)}`);
      },
      now,
      ...(budgetMs === undefined ? {} : { budgetMs }),
    });

  it('drains a backlog of several pages in one run, each message once, and only then moves its cursor', async () => {
    const at = Date.parse('2026-12-02T05:30:20Z');
    const s = store(backlog(at, 2 * SWEEP_PAGE + 1234));
    const enqueued: string[] = [];
    expect(await sweeper(s, enqueued, () => new Date(at))()).toEqual({ enqueued: 2 * SWEEP_PAGE + 1234 });
    expect(new Set(enqueued).size).toBe(enqueued.length);
    expect(s.state.removed).toBe(2 * SWEEP_PAGE + 1234);
    expect(s.state.cursor).toBe(Date.parse('2026-12-02T05:29:00Z'));
  });

  it('stops taking pages when its time is spent, and leaves the rest (and its cursor) to the next run', async () => {
    const at = Date.parse('2026-12-02T05:30:20Z');
    const s = store(backlog(at, 3 * SWEEP_PAGE));
    const enqueued: string[] = [];
    let clock = at;
    // Each page takes 15 s of a 20 s budget: the run stops after its second page.
    const sweep = sweeper(s, enqueued, () => new Date(clock), 20_000);
    const slowStore = {
      ...s,
      due: async (...args: Parameters<typeof s.due>) => {
        clock += 15_000;
        return s.due(...args);
      },
    };
    const slow = makeSweepDue({
      store: slowStore,
      queue: { enqueue: async (jobs) => void enqueued.push(...jobs.map((j) => j.job.messageId)) },
      lookaheadMs: LOOKAHEAD_MS,
      onBackgroundError: () => {},
      now: () => new Date(clock),
      budgetMs: 20_000,
    });
    expect(await slow()).toEqual({ enqueued: 2 * SWEEP_PAGE });
    expect(s.state.cursor).toBeUndefined();
    clock = at + 60_000;
    expect(await sweep()).toEqual({ enqueued: SWEEP_PAGE });
    expect(new Set(enqueued).size).toBe(3 * SWEEP_PAGE);
  });

  it('a page that cannot be queued stays for the next run, and the run ends there', async () => {
    const at = Date.parse('2026-12-02T05:30:20Z');
    const s = store(backlog(at, 2 * SWEEP_PAGE));
    const failures: string[] = [];
    const sweep = makeSweepDue({
      store: s,
      queue: {
        enqueue: async () => {
          throw new Error('throttled');
        },
      },
      lookaheadMs: LOOKAHEAD_MS,
      onBackgroundError: (what) => void failures.push(what),
      now: () => new Date(at),
    });
    const result = await sweep();
    expect(result).toEqual({ enqueued: 0, notQueued: SWEEP_PAGE });
    // Not a run that found nothing: the local schedule keeps its pace for what is left.
    expect(foundNothing(result)).toBe(false);
    expect(failures).toHaveLength(1);
    expect(s.state.removed).toBe(0);
    expect(s.state.cursor).toBeUndefined();
  });
});
