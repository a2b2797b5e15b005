import { describe, expect, it } from 'vitest';
import type { DeferredMessage, OutboundJob } from '#shared/messaging/volume/deferred.ts';
import { makeAcceptDeferred } from '#shared/messaging/volume/accept-deferred.ts';

describe('a batch queued on a paced channel', () => {
  it('reserves the turns behind what the channel queued before, each job carrying its own, visible a second before it', async () => {
    const now = new Date('2026-12-02T10:00:00.000Z');
    const enqueued: { job: OutboundJob; delaySeconds: number }[] = [];
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
      // The channel's queue holds 3 s (40 sends) already.
      pacer: {
        plan: async (...args) => {
          planned.push(args);
          return { at: now.getTime() + 3000, seq: 40 };
        },
      },
      now: () => now,
    });
    const inTwoMinutes = new Date(now.getTime() + 120_000).toISOString();
    await accept(
      [message('m0'), message('m1'), message('s', inTwoMinutes), message('m2'), message('m3'), message('m4')],
      { perSecond: 2 },
    );
    // Two a second: 508 ms apart (the pace's window, the departure tolerance and 0.5 %), in one call; each job visible
    // a second before its turn and carrying it, so that the worker neither reserves again nor finds it early. The
    // scheduled one has no turn: it waits for its time.
    expect(planned).toEqual([['ch', 5, expect.closeTo(507.525, 6), now.getTime()]]);
    const t = now.getTime() + 3000;
    const spacing = planned.length ? (planned[0] as number[])[2]! : 0;
    expect(Object.fromEntries(enqueued.map((e) => [e.job.messageId, [e.delaySeconds, e.job.turn]]))).toEqual({
      m0: [2, { at: t, seq: 40 }],
      m1: [2, { at: t + spacing, seq: 41 }],
      m2: [3, { at: t + 2 * spacing, seq: 42 }],
      m3: [3, { at: t + 3 * spacing, seq: 43 }],
      m4: [4, { at: t + 4 * spacing, seq: 44 }],
      s: [120, undefined],
    });
  });
});

describe('a batch queued on a channel whose pace item did not answer', () => {
  it('carries no turn (the worker reserves it as the job arrives) and is visible at once', async () => {
    const now = new Date('2026-12-02T10:00:00.000Z');
    const enqueued: { job: OutboundJob; delaySeconds: number }[] = [];
    const accept = makeAcceptDeferred({
      store: {
        create: async (messages) => messages.map((m) => ({ messageId: m.messageId, dueAt: m.createdAt })),
        removeDue: async () => {},
      },
      queue: { enqueue: async (jobs) => void enqueued.push(...jobs) },
      lookaheadMs: 180_000,
      onBackgroundError: () => {},
      pacer: {
        plan: async () => {
          throw new Error('the store did not answer');
        },
      },
      now: () => now,
    });
    const message = (messageId: string) =>
      ({ messageId, channelId: 'ch', createdAt: now.toISOString() }) as DeferredMessage;
    await accept([message('m0'), message('m1')], { perSecond: 1 });
    expect(enqueued).toEqual([
      { job: { messageId: 'm0' }, delaySeconds: 0 },
      { job: { messageId: 'm1' }, delaySeconds: 0 },
    ]);
  });
});
