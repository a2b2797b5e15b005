import { describe, expect, it } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import type { ChannelPacer } from '#shared/messaging/volume/pace.ts';
import { makeWorkOutbound, type OutboundRecord } from '#shared/messaging/volume/work-outbound.ts';

/** A clock that moves only when every pending task waits on it: timers fire in order, instantly. */
function virtualClock() {
  let t = 1_000_000;
  const timers: { at: number; wake: () => void }[] = [];
  const settle = () => new Promise<void>((r) => setImmediate(r));
  return {
    now: () => t,
    sleep: (ms: number) => new Promise<void>((wake) => timers.push({ at: t + Math.max(0, ms), wake })),
    async run(until: Promise<unknown>) {
      let done = false;
      void until.finally(() => {
        done = true;
      });
      while (!done) {
        for (let i = 0; i < 5; i++) await settle();
        if (done || timers.length === 0) break;
        timers.sort((a, b) => a.at - b.at);
        const next = timers.shift()!;
        t = Math.max(t, next.at);
        next.wake();
      }
      return until;
    },
  };
}

/** The pacer's rules (pace.ts) in memory, each write taking `latency` ms of the clock. */
function memoryPacer(clock: ReturnType<typeof virtualClock>, latency: () => number) {
  let next = 0;
  let seq = 0;
  const slots = new Map<number, number>();
  let admits = 0;
  const pacer: Pick<ChannelPacer, 'reserve' | 'admit'> = {
    async reserve(_channelId, count, spacingMs, now, horizonMs) {
      await clock.sleep(latency());
      const at = Math.max(now, next);
      if (at - now > horizonMs) return { later: at };
      next = at + count * spacingMs;
      seq += count;
      return { at, seq: seq - count };
    },
    async admit(_channelId, slot, windowMs, now) {
      admits++;
      const last = slots.get(slot);
      await clock.sleep(latency());
      if (last !== undefined && last > now - windowMs) return { retryAt: last + windowMs };
      slots.set(slot, now);
      return true;
    },
  };
  return { pacer, admits: () => admits };
}

/** The most sends any half-open second of `times` holds. */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('the outbound worker on a channel pace', () => {
  it('keeps the pace where the sends leave when claims and charges take their time', async () => {
    // 400 queued sends at 20 a second, taken 10 a batch; a third of the claims and charges take 100-190 ms, the
    // rest 5-20 ms, and each store write 2-10 ms: the spread between a slot's stamp and its send's departure.
    const clock = virtualClock();
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const { pacer, admits } = memoryPacer(clock, () => 2 + random() * 8);
    const messages = new Map<string, DeferredMessage>();
    for (let i = 0; i < 400; i++) {
      const messageId = `msg_${i}`;
      messages.set(messageId, {
        messageId,
        projectId: 'prj',
        channelId: 'ch',
        status: 'queued',
        body: { to: '+15550000000', text: `hello ${i}` },
      } as unknown as DeferredMessage);
    }
    const sentAt = new Map<string, number[]>();
    const work = makeWorkOutbound({
      store: { getMany: async (ids) => new Map(ids.map((id) => [id, messages.get(id)!])) },
      pacer,
      paceOf: async () => ({ perSecond: 20 }),
      fire: async (message, turn, departure) => {
        await turn();
        await clock.sleep(random() < 1 / 3 ? 100 + random() * 90 : 5 + random() * 15);
        await departure?.();
        sentAt.set(message.messageId, [...(sentAt.get(message.messageId) ?? []), clock.now()]);
        return { done: true };
      },
      abandon: async () => {},
      now: clock.now,
      sleep: clock.sleep,
    });
    // The queue: a job not done comes back when the worker asked.
    const deliver = async (records: OutboundRecord[]): Promise<void> => {
      const outcomes = await work(records);
      const again = outcomes.filter((o) => !o.done);
      await Promise.all(
        again.map(async (o) => {
          await clock.sleep((o as { seconds: number }).seconds * 1000);
          await deliver(records.filter((r) => r.id === o.id));
        }),
      );
    };
    const ids = [...messages.keys()];
    const start = clock.now();
    const batches = Array.from({ length: 40 }, (_, b) =>
      ids.slice(b * 10, b * 10 + 10).map((id) => ({ id, job: { messageId: id } }) as OutboundRecord),
    );
    await clock.run(Promise.all(batches.map((batch, b) => clock.sleep(b * 50).then(() => deliver(batch)))));

    expect(sentAt.size).toBe(400);
    expect([...sentAt.values()].every((times) => times.length === 1)).toBe(true);
    expect(busiestSecond([...sentAt.values()].flat())).toBeLessThanOrEqual(20);
    // Nothing written again for a slow send: about one admission per send, and the drain at the pace.
    expect(admits()).toBeLessThanOrEqual(440);
    expect(Math.max(...[...sentAt.values()].flat()) - start).toBeLessThan(400 * 51 + 3_000);
  });
});
