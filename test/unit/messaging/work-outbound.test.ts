import { describe, expect, it } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import type { ChannelPacer } from '#shared/messaging/volume/pace.ts';
import { makeWorkOutbound } from '#shared/messaging/volume/work-outbound.ts';

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
  const pacer: ChannelPacer = {
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
