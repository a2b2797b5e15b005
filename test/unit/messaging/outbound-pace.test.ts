import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import type { ChannelPacer } from '#shared/messaging/volume/pace.ts';
import { makeWorkOutbound } from '#shared/messaging/volume/work-outbound.ts';

/** The channel pace's contract in memory (the DynamoDB one: test/integration/messaging/channel-pacer.test.ts). */
class MemoryPacer implements Pick<ChannelPacer, 'reserve' | 'admit'> {
  next = 0;
  seq = 0;
  slots = new Map<number, number>();
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
}

const scheduledMessage = (sendAt: number): DeferredMessage => ({
  messageId: 'msg_1',
  projectId: 'prj_1',
  channelId: 'ch_1',
  integrationId: 'int_1',
  channelType: 'whatsapp',
  companyId: 1,
  channelAddress: '+15005550006',
  provider: 'whatsapp-cloud',
  status: 'scheduled',
  conversationId: 'conv_1',
  contact: '+5511988880000',
  to: '+5511988880000',
  body: { to: '+5511988880000', text: 'm1' },
  createdAt: new Date(0).toISOString(),
  sendAt: new Date(sendAt).toISOString(),
});

describe('a scheduled send in the outbound worker', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-12-02T10:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('leaves at its time though it came 2 s early and its checks took 700 ms', async () => {
    const sendAt = Date.now() + 2_000;
    const scheduled = scheduledMessage(sendAt);
    const sent: number[] = [];
    const work = makeWorkOutbound({
      store: { getMany: async () => new Map([['msg_1', scheduled]]) },
      pacer: new MemoryPacer(),
      paceOf: async () => ({ perSecond: 80 }),
      fire: async (_m, turn) => {
        // Its message and channel read, its checks: slow on a busy worker.
        await new Promise((r) => setTimeout(r, 700));
        await turn();
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
