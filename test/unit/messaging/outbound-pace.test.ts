import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import { type ChannelPacer, paceSlots } from '#shared/messaging/volume/pace.ts';
import { makeWorkOutbound, type OutboundRecord } from '#shared/messaging/volume/work-outbound.ts';

/** The channel pace's contract in memory (the DynamoDB one: test/integration/messaging/channel-pacer.test.ts). */
class MemoryPacer implements Pick<ChannelPacer, 'reserve' | 'admit' | 'restamp'> {
  next = 0;
  seq = 0;
  slots = new Map<number, number>();
  restamps = 0;
  /** How long each restamp's write takes (a loaded store or worker). */
  restampTakes = 0;
  async reserve(_channelId: string, count: number, spacingMs: number, now: number, horizonMs: number) {
    const at = Math.max(now, this.next);
    if (at > now + horizonMs) return { later: at };
    this.next = at + count * spacingMs;
    this.seq += count;
    return { at, seq: this.seq - count };
  }
  async admit(_channelId: string, slot: number, windowMs: number, now: number) {
    const last = this.slots.get(slot);
    if (last !== undefined && last > now - windowMs) return { retryAt: last + windowMs };
    this.slots.set(slot, now);
    return true as const;
  }
  async restamp(_channelId: string, slot: number, from: number, now: number) {
    this.restamps++;
    if (this.restampTakes) await new Promise((r) => setTimeout(r, this.restampTakes));
    if (this.slots.get(slot) !== from) return false;
    this.slots.set(slot, now);
    return true;
  }
}

function message(n: number): DeferredMessage {
  return {
    messageId: `msg_${n}`,
    projectId: 'prj_1',
    channelId: 'ch_1',
    integrationId: 'int_1',
    channelType: 'whatsapp',
    companyId: 1,
    channelAddress: '+15005550006',
    provider: 'whatsapp-cloud',
    status: 'queued',
    conversationId: 'conv_1',
    contact: '+5511988880000',
    to: '+5511988880000',
    body: { to: '+5511988880000', text: `m${n}` },
    createdAt: new Date(0).toISOString(),
  };
}

/** Most sends in any window [t, t + 1000). */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * `count` batch items drained at `perSecond` by `workers` workers taking up to 10 jobs each (a job put back comes
 * again after its delay). Between its turn and the provider call each send takes `claimTakes(n)` ms (its claim and
 * charge, on a busy worker). Answers when each left for the provider, on the fake clock.
 */
async function drain(pacer: MemoryPacer, count: number, perSecond: number, claimTakes: (n: number) => number) {
  const messages = new Map(Array.from({ length: count }, (_, n) => [`msg_${n}`, message(n)]));
  const sent: number[] = [];
  const work = makeWorkOutbound({
    store: {
      getMany: async (ids) => new Map(ids.flatMap((id) => (messages.has(id) ? [[id, messages.get(id)!]] : []))),
    },
    pacer,
    paceOf: async () => ({ perSecond }),
    fire: async (m, turn, leaving) => {
      await turn();
      const takes = claimTakes(Number(m.messageId.slice(4)));
      if (takes) await new Promise((r) => setTimeout(r, takes));
      // Optional: a worker without the last look calls without it.
      await leaving?.();
      sent.push(Date.now());
      messages.delete(m.messageId);
      return { done: true };
    },
    abandon: async () => {},
  });
  let queue = [...messages.keys()].map((id) => ({ record: { id, job: { messageId: id } } as OutboundRecord, at: 0 }));
  const worker = async () => {
    while (messages.size) {
      const due = queue.filter((q) => q.at <= Date.now()).slice(0, 10);
      if (!due.length) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      queue = queue.filter((q) => !due.includes(q));
      const outcomes = await work(due.map((d) => d.record));
      for (const o of outcomes)
        if (!o.done)
          queue.push({ record: due.find((d) => d.record.id === o.id)!.record, at: Date.now() + o.seconds * 1000 });
    }
  };
  const done = Promise.all(Array.from({ length: 4 }, worker));
  while (messages.size) await vi.advanceTimersByTimeAsync(1000);
  await done;
  return sent;
}

describe('the channel pace where a send leaves', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-12-02T10:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('never lets a second hold more than the pace, though senders leave late after their slot', async () => {
    // 400 items at 20 a second; every third send's claim and charge take 150-500 ms after its slot (a busy worker),
    // the rest 0-9 ms. A slot taken a window after a late send's stamp must not let both leave within one second.
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pacer = new MemoryPacer();
    const sent = await drain(pacer, 400, 20, (n) => (n % 3 === 0 ? 150 + random() * 350 : random() * 10));
    expect(sent).toHaveLength(400);
    expect(busiestSecond(sent)).toBeLessThanOrEqual(20);
    expect(pacer.restamps).toBeGreaterThan(0);
    // Still about the pace: 399 spacings of 1,030 / 20 ms, and a little for the late ones.
    const took = Math.max(...sent) - Math.min(...sent);
    expect(took).toBeGreaterThanOrEqual(399 * paceSlots(20).spacingMs);
    expect(took).toBeLessThan(399 * paceSlots(20).spacingMs * 1.15);
  });

  it('puts a send back on the queue, unsent, when its worker cannot stamp its slot in time', async () => {
    // Each stamp's write takes longer than the allowance: the send never catches up with its stamp.
    const pacer = new MemoryPacer();
    pacer.restampTakes = 50;
    const left: string[] = [];
    const work = makeWorkOutbound({
      store: { getMany: async (ids) => new Map(ids.map((id) => [id, message(Number(id.slice(4)))])) },
      pacer,
      paceOf: async () => ({ perSecond: 20 }),
      fire: async (m, turn, leaving) => {
        await turn();
        await new Promise((r) => setTimeout(r, 100));
        await leaving();
        left.push(m.messageId);
        return { done: true };
      },
      abandon: async () => {},
    });
    const outcome = work([{ id: 'r1', job: { messageId: 'msg_1' } }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toEqual([{ id: 'r1', done: false, seconds: 2 }]);
    expect(left).toEqual([]);
    expect(pacer.restamps).toBe(4);
  });

  it('sends a scheduled message at its time though it came 2 s early and its checks took 700 ms', async () => {
    const sendAt = Date.now() + 2_000;
    const sent: number[] = [];
    const scheduled = { ...message(1), status: 'scheduled' as const, sendAt: new Date(sendAt).toISOString() };
    const work = makeWorkOutbound({
      store: { getMany: async () => new Map([['msg_1', scheduled]]) },
      pacer: new MemoryPacer(),
      paceOf: async () => ({ perSecond: 80 }),
      fire: async (_m, turn, leaving) => {
        // Its message and channel read, its checks: slow on a busy worker.
        await new Promise((r) => setTimeout(r, 700));
        await turn();
        await leaving();
        sent.push(Date.now());
        return { done: true };
      },
      abandon: async () => {},
    });
    const outcome = work([{ id: 'r1', job: { messageId: 'msg_1', sendAt: scheduled.sendAt } }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toEqual([{ id: 'r1', done: true }]);
    expect(sent).toEqual([sendAt]);
  });
});
