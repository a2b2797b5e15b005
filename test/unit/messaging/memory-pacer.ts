import { expect } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import type { ChannelPacer } from '#shared/messaging/volume/pace.ts';

/** A clock that moves only when every pending task waits on it: timers fire in order, instantly. */
export function virtualClock() {
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

export function seeded(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/**
 * The pacer's rules (pace.ts, dynamo-channel-pacer.ts) in memory: each call reaches the store after half its
 * latency, is decided there, and its answer comes back after the other half. A call is one write per item of 40
 * slots it names, and a second one on an item where a slot was taken and others were free (asked again without it).
 */
export function memoryPacer(clock: ReturnType<typeof virtualClock>, latency: () => number) {
  let next = 0;
  let seq = 0;
  const slots = new Map<number, number>();
  let admits = 0;
  let writes = 0;
  let retakes = 0;
  let refusals = 0;
  const pacer: Pick<ChannelPacer, 'reserve' | 'admit'> = {
    async reserve(_channelId, count, spacingMs, now, horizonMs) {
      await clock.sleep(latency());
      const at = Math.max(now, next);
      if (at - now > horizonMs) return { later: at };
      next = at + count * spacingMs;
      seq += count;
      return { at, seq: seq - count };
    },
    async admit(_channelId, windowMs, requests) {
      expect(new Set(requests.map((r) => r.slot)).size).toBe(requests.length);
      const way = latency();
      await clock.sleep(way / 2);
      const items = new Map<number, boolean[]>();
      const answers = requests.map((r) => {
        admits++;
        if (r.mine !== undefined) retakes++;
        const last = slots.get(r.slot);
        const free = last === undefined || last <= r.at - windowMs || last === r.mine;
        if (free) slots.set(r.slot, r.at);
        else refusals++;
        const item = Math.floor(r.slot / 40);
        items.set(item, [...(items.get(item) ?? []), free]);
        return free ? (true as const) : { retryAt: last! + windowMs };
      });
      for (const frees of items.values()) writes += frees.every(Boolean) || !frees.some(Boolean) ? 1 : 2;
      // Every slot of the items written, as the store holds them.
      const seen = new Map([...slots].filter(([slot]) => items.has(Math.floor(slot / 40))));
      await clock.sleep(way / 2);
      return { answers, stamps: seen };
    },
  };
  return { pacer, admits: () => admits, counts: () => ({ retakes, refusals, writes }) };
}

/** `count` queued sends of one channel (`msg_0` …), by id: what the drains' worker reads as its store. */
export function queuedMessages(count: number): Map<string, DeferredMessage> {
  const messages = new Map<string, DeferredMessage>();
  for (let i = 0; i < count; i++)
    messages.set(`msg_${i}`, {
      messageId: `msg_${i}`,
      projectId: 'prj',
      channelId: 'ch',
      status: 'queued',
      body: { to: '+15550000000', text: `hello ${i}` },
    } as unknown as DeferredMessage);
  return messages;
}
