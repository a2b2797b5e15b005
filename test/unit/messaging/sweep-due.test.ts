import { describe, expect, it } from 'vitest';
import { DUE_PARTITIONS } from '#shared/contract/keys.ts';
import type { DueEntry } from '#shared/messaging/volume/deferred.ts';
import { FIRST_RUN_LOOK_BACK_MS, makeSweepDue } from '#shared/messaging/volume/sweep-due.ts';

const MINUTE = 60_000;
const LOOKAHEAD_MS = 3 * MINUTE;

/** A store of due entries that counts the partitions a sweep reads (each minute's `DUE_PARTITIONS`). */
function store(entries: DueEntry[]) {
  const state = { cursor: undefined as number | undefined, partitionsRead: 0, removed: [] as string[] };
  return {
    state,
    async due(fromMs: number, untilMs: number, limit: number) {
      const first = Math.floor(fromMs / MINUTE) * MINUTE;
      state.partitionsRead += (Math.floor((untilMs - first) / MINUTE) + 1) * DUE_PARTITIONS;
      return entries
        .filter((e) => Date.parse(e.dueAt) >= first && Date.parse(e.dueAt) <= untilMs)
        .filter((e) => !state.removed.includes(e.messageId))
        .slice(0, limit);
    },
    async removeDue(done: readonly DueEntry[]) {
      state.removed.push(...done.map((e) => e.messageId));
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
});
