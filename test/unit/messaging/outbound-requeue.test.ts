import { describe, expect, it } from 'vitest';
import type { OutboundJob } from '#shared/messaging/volume/deferred.ts';
import { makeWorkOutbound, type OutboundRecord } from '#shared/messaging/volume/work-outbound.ts';
import { busiestSecond } from '#test/support/busiest-second.ts';
import { memoryPacer, queuedMessages, seeded, virtualClock } from './memory-pacer.ts';

/**
 * 1,000 queued sends at 80 a second (12.5 s of pace) whose jobs all reach the worker within their first 2 s, as when a
 * drain has fallen behind the visibility its jobs were given: the queue is a virtual one that shows a job put back
 * after its seconds, and one queued again after its delay. `requeue`: whether the worker may queue jobs again.
 */
async function earlyDrain(seed: number, requeue: boolean) {
  const clock = virtualClock();
  const random = seeded(seed);
  const { pacer } = memoryPacer(clock, () => 2 + random() * 8);
  const messages = queuedMessages(1000);
  const sentAt = new Map<string, number[]>();
  const received = new Map<string, number>();
  let putBack = 0;
  let records = 0;
  const deliver = async (jobs: readonly OutboundJob[]): Promise<void> => {
    const batch = jobs.map((job) => ({ id: `r${++records}`, job }) as OutboundRecord);
    for (const { job } of batch) received.set(job.messageId, (received.get(job.messageId) ?? 0) + 1);
    const outcomes = await work(batch);
    await Promise.all(
      outcomes.map(async (o) => {
        if (o.done) return;
        putBack++;
        await clock.sleep(o.seconds * 1000);
        await deliver(batch.filter((r) => r.id === o.id).map((r) => r.job));
      }),
    );
  };
  const work = makeWorkOutbound({
    store: { getMany: async (ids) => new Map(ids.map((id) => [id, messages.get(id)!])) },
    pacer,
    paceOf: async () => ({ perSecond: 80 }),
    fire: async (message, turn, departure) => {
      await turn();
      await clock.sleep(5 + random() * 15);
      await departure();
      sentAt.set(message.messageId, [...(sentAt.get(message.messageId) ?? []), clock.now()]);
      return { done: true };
    },
    abandon: async () => {},
    now: clock.now,
    sleep: clock.sleep,
    ...(requeue
      ? {
          // SQS shows a job after its delay; the copy received is deleted once the worker says it is done.
          requeue: async (jobs: readonly { job: OutboundJob; delaySeconds: number }[]) => {
            for (const { job, delaySeconds } of jobs)
              void clock.sleep(delaySeconds * 1000).then(() => pending.push(deliver([job])));
          },
        }
      : {}),
  });
  const pending: Promise<void>[] = [];
  const ids = [...messages.keys()];
  const start = clock.now();
  const first = Array.from({ length: 100 }, (_, b) =>
    clock.sleep(b * 20).then(() => deliver(ids.slice(b * 10, b * 10 + 10).map((messageId) => ({ messageId })))),
  );
  // Settles once every send has left (a job queued again is delivered later, beside the first deliveries).
  const all = async () => {
    await Promise.all(first);
    while (sentAt.size < 1000 && pending.length) await Promise.all(pending.splice(0));
  };
  await clock.run(all());
  const receives = [...received.values()];
  return {
    sentAt,
    putBack,
    receives: receives.reduce((a, b) => a + b, 0),
    mostReceives: Math.max(...receives),
    took: Math.max(...[...sentAt.values()].flat()) - start,
  };
}

describe('the outbound worker given jobs long before their turn', () => {
  it('reserves each its turn once and has it back just before it, instead of putting it back until it wins one', async () => {
    for (const seed of [7, 11, 23]) {
      const { sentAt, putBack, receives, mostReceives, took } = await earlyDrain(seed, true);
      expect(sentAt.size).toBe(1000);
      expect([...sentAt.values()].every((times) => times.length === 1)).toBe(true);
      expect(busiestSecond([...sentAt.values()].flat()), `seed ${seed}`).toBeLessThanOrEqual(80);
      // Each job is received once to reserve its turn and, when that turn was beyond the worker's 2 s, once more just
      // before it: never put back. Without the requeue every job beyond the horizon went back reserving nothing and
      // asked again each time it returned, while others took the turns ahead: 3,074-3,111 receives here, 2,074-2,111
      // put back, one job up to 8 times (each a receive, a read, a reservation refused and a visibility change).
      expect(putBack, `seed ${seed}`).toBe(0);
      expect(mostReceives, `seed ${seed}`).toBeLessThanOrEqual(2);
      expect(receives, `seed ${seed}`).toBeLessThanOrEqual(2000);
      // And the drain keeps the pace: 12.5 s, with the plan's margin and the tolerance.
      expect(took, `seed ${seed}`).toBeLessThan(12_500 * 1.025);
    }
  });
});
