import { describe, expect, it } from 'vitest';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import { makeAcceptDeferred } from '#shared/messaging/volume/accept-deferred.ts';

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
    // Two a second: 508 ms apart (the pace's window, the departure tolerance and 0.5 %); each visible a second before
    // its turn.
    expect(planned).toEqual([['ch', 5, expect.closeTo(507.525, 6), now.getTime()]]);
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
