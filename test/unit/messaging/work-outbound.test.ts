import { describe, expect, it } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import type { ChannelPacer } from '#shared/messaging/volume/pace.ts';
import { makeWorkOutbound } from '#shared/messaging/volume/work-outbound.ts';
import { makeAcceptDeferred } from '#shared/messaging/volume/accept-deferred.ts';

/** A queued message on channel `ch` (the worker reads only its status, channel and time). */
const queued = (messageId: string) =>
  ({ messageId, projectId: 'p', channelId: 'ch', status: 'queued', body: {} }) as unknown as DeferredMessage;

/**
 * The outbound worker on a virtual clock: `sleep` moves the clock, the pacer keeps each slot's last admission as the
 * store does (one conditional write each, refused when the slot's last send is under a window old).
 */
function worker(perSecond: number, lateMs: (messageId: string) => number) {
  let clock = 1_000_000;
  const timers: { at: number; wake: () => void }[] = [];
  const sleep = (ms: number) => new Promise<void>((wake) => timers.push({ at: clock + ms, wake }));
  /** Runs `work` to its end, moving the clock to the next timer whenever everything waits. */
  const run = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    void work.finally(() => (done = true));
    while (!done) {
      await new Promise((r) => setImmediate(r));
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      if (next) {
        clock = Math.max(clock, next.at);
        next.wake();
      }
    }
    return work;
  };
  const slots = new Map<number, number>();
  const admits: { slot: number; at: number; ok: boolean }[] = [];
  const sent: { messageId: string; at: number }[] = [];
  const pacer: Pick<ChannelPacer, 'reserve' | 'admit'> = {
    async reserve(_channel, count, spacingMs, now) {
      return { at: now, seq: 0, ...{ count, spacingMs } };
    },
    async admit(_channel, slot, windowMs, now) {
      const last = slots.get(slot);
      const ok = last === undefined || last <= now - windowMs;
      admits.push({ slot, at: now, ok });
      if (ok) slots.set(slot, now);
      return ok ? true : { retryAt: last! + windowMs };
    },
  };
  const work = makeWorkOutbound({
    store: { getMany: async (ids) => new Map(ids.map((id) => [id, queued(id)])) },
    pacer,
    paceOf: async () => ({ perSecond }),
    fire: async (message, turn) => {
      // The send's own checks take their time (late on a busy machine), then its turn.
      await sleep(lateMs(message.messageId));
      await turn();
      sent.push({ messageId: message.messageId, at: clock });
      return { done: true };
    },
    abandon: async () => {},
    now: () => clock,
    sleep,
  });
  return { work: (records: Parameters<typeof work>[0]) => run(work(records)), admits, sent };
}

describe('the outbound worker at a channel pace', () => {
  it('never lets a slot hold two sends within a window, and asks the store for a slot it knows taken no more', async () => {
    // Two a second: two slots; six sends of one batch, some of them late, share them.
    const { work, admits, sent } = worker(2, (id) => (id === 'm1' || id === 'm4' ? 700 : 0));
    const ids = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'];
    const outcomes = await work(ids.map((id) => ({ id, job: { messageId: id } })));
    expect(outcomes.every((o) => o.done)).toBe(true);
    expect(sent.map((s) => s.messageId).sort()).toEqual(ids);
    // The pace holds: any window of 1.02 s holds at most two admissions.
    const times = admits
      .filter((a) => a.ok)
      .map((a) => a.at)
      .sort((a, b) => a - b);
    for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(1020);
    // Every admission this process asked for was granted: it waited for the slots it had used itself.
    expect(admits.filter((a) => !a.ok)).toEqual([]);
    expect(admits).toHaveLength(ids.length);
  });
});

describe('a batch queued on a paced channel', () => {
  it('makes each job visible about its turn, behind what the channel queued before; a scheduled one at its time', async () => {
    const now = new Date('2026-12-02T10:00:00.000Z');
    const enqueued: { job: { messageId: string }; delaySeconds: number }[] = [];
    const planned: unknown[] = [];
    const message = (messageId: string, sendAt?: string) =>
      ({ messageId, channelId: 'ch', createdAt: now.toISOString(), ...(sendAt ? { sendAt } : {}) }) as DeferredMessage;
    const accept = makeAcceptDeferred({
      store: {
        create: async (messages) =>
          messages.map((m) => ({
            messageId: m.messageId,
            dueAt: m.sendAt ?? m.createdAt,
            ...(m.sendAt ? { sendAt: m.sendAt } : {}),
          })),
        removeDue: async () => {},
      },
      queue: { enqueue: async (jobs) => void enqueued.push(...jobs) },
      lookaheadMs: 180_000,
      onBackgroundError: () => {},
      // The channel's queue holds 3 s of sends already.
      pacer: {
        plan: async (...args) => {
          planned.push(args);
          return now.getTime() + 3000;
        },
      },
      now: () => now,
    });
    const inTwoMinutes = new Date(now.getTime() + 120_000).toISOString();
    await accept(
      [message('m0'), message('m1'), message('s', inTwoMinutes), message('m2'), message('m3'), message('m4')],
      { perSecond: 2 },
    );
    // Two a second: 510 ms apart; each visible a second before its turn.
    expect(planned).toEqual([['ch', 5, 510, now.getTime()]]);
    expect(Object.fromEntries(enqueued.map((e) => [e.job.messageId, e.delaySeconds]))).toEqual({
      m0: 2,
      m1: 2,
      m2: 3,
      m3: 3,
      m4: 4,
      s: 120,
    });
  });
});
