import { describe, expect, it } from 'vitest';
import { makeAcceptDeferred } from '#shared/messaging/volume/accept-deferred.ts';
import type { DeferredMessage, OutboundJob } from '#shared/messaging/volume/deferred.ts';
import { makeWorkOutbound, type OutboundRecord } from '#shared/messaging/volume/work-outbound.ts';
import { busiestSecond } from '#test/support/busiest-second.ts';
import { memoryPacer, queuedMessages, seeded, virtualClock } from './memory-pacer.ts';

/**
 * Five batches of 200 accepted 0.8 s apart on a channel paced at 80 a second (12.5 s of pace), drained by the worker
 * through a virtual queue that shows each job after its delay and hands it over 20-300 ms later (a receive on a busy
 * service), 10 at a time; in the first 4 s one send in four gives its turn back, and 3 s in a job without a turn
 * arrives. Counts the worker's reservations and the jobs it queued again.
 */
async function acceptedDrain(seed: number) {
  const clock = virtualClock();
  const random = seeded(seed);
  const { pacer } = memoryPacer(clock, () => 2 + random() * 8);
  const messages = queuedMessages(1001);
  const sentAt = new Map<string, number[]>();
  let received = 0;
  const gaveBack = new Set<string>();
  const start = clock.now();
  let reservedByWorker = 0;
  let queuedAgain = 0;
  const pending: Promise<void>[] = [];
  // Jobs visible from the same second go to the worker together, 10 a batch.
  const show = (jobs: readonly { job: OutboundJob; delaySeconds: number }[]) => {
    for (const delaySeconds of new Set(jobs.map((j) => j.delaySeconds))) {
      const visible = jobs.filter((j) => j.delaySeconds === delaySeconds);
      for (let i = 0; i < visible.length; i += 10) {
        const chunk = visible.slice(i, i + 10).map((j) => j.job);
        void clock.sleep(delaySeconds * 1000 + 20 + random() * 280).then(() => pending.push(deliver(chunk)));
      }
    }
  };
  const work = makeWorkOutbound({
    store: { getMany: async (ids) => new Map(ids.map((id) => [id, messages.get(id)!])) },
    pacer: {
      admit: pacer.admit,
      reserve: (...args) => {
        reservedByWorker++;
        return pacer.reserve(...args);
      },
    },
    paceOf: async () => ({ perSecond: 80 }),
    fire: async (message, turn, departure) => {
      // While the batches are still being accepted, one send in four wakes too late and gives its turn back (its job
      // comes back in 2 s), as on a service whose cores the acceptance keeps busy.
      if (
        clock.now() - start < 4000 &&
        message.messageId !== 'msg_1000' &&
        !gaveBack.has(message.messageId) &&
        random() < 0.25
      ) {
        gaveBack.add(message.messageId);
        return { done: false, retryInSeconds: 2 };
      }
      await turn();
      await clock.sleep(5 + random() * 15);
      await departure();
      sentAt.set(message.messageId, [...(sentAt.get(message.messageId) ?? []), clock.now()]);
      return { done: true };
    },
    abandon: async () => {},
    now: clock.now,
    sleep: clock.sleep,
    requeue: async (jobs) => {
      queuedAgain += jobs.length;
      show(jobs);
    },
  });
  async function deliver(jobs: readonly OutboundJob[]): Promise<void> {
    received += jobs.length;
    const batch = jobs.map((job, i) => ({ id: `${job.messageId}#${received + i}`, job }) as OutboundRecord);
    const outcomes = await work(batch);
    const back = outcomes.filter((o) => !o.done);
    for (const o of back)
      show(batch.filter((r) => r.id === o.id).map((r) => ({ job: r.job, delaySeconds: o.done ? 0 : o.seconds })));
  }
  const accept = makeAcceptDeferred({
    store: {
      create: async (batch) => batch.map((m) => ({ messageId: m.messageId, dueAt: m.createdAt })),
      removeDue: async () => {},
    },
    queue: { enqueue: async (jobs) => show(jobs) },
    lookaheadMs: 180_000,
    onBackgroundError: () => {},
    pacer,
    now: () => new Date(clock.now()),
  });
  const all = [...messages.values()].map(
    (m) => ({ ...m, createdAt: new Date(clock.now()).toISOString() }) as DeferredMessage,
  );
  const accepting = Array.from({ length: 5 }, (_, b) =>
    clock.sleep(b * 800).then(() => accept(all.slice(b * 200, b * 200 + 200), { perSecond: 80 })),
  );
  // 3 s in, a job without a turn (a scheduled send due then, or one the due sweep queued): it reserves as it arrives.
  const loneAt = start + 3000;
  void clock.sleep(3000).then(() => pending.push(deliver([{ messageId: 'msg_1000' }])));
  const drained = async () => {
    await Promise.all(accepting);
    while (sentAt.size < 1001) {
      await clock.sleep(100);
      await Promise.all(pending.splice(0));
    }
  };
  await clock.run(drained());
  const busiest = busiestSecond([...sentAt.values()].flat());
  const lone = sentAt.get('msg_1000')![0]! - loneAt;
  sentAt.delete('msg_1000');
  return {
    busiest,
    lone,
    sentAt,
    received: received - 1,
    gaveBack: gaveBack.size,
    reservedByWorker,
    queuedAgain,
    took: Math.max(...[...sentAt.values()].flat()) - start,
  };
}

describe('the outbound worker draining batches accepted one after another', () => {
  it('receives each job once, with the turn its batch took: no reservation of its own, none queued again', async () => {
    for (const seed of [7, 11, 23]) {
      const { busiest, lone, sentAt, received, gaveBack, reservedByWorker, queuedAgain, took } =
        await acceptedDrain(seed);
      expect(sentAt.size).toBe(1000);
      expect([...sentAt.values()].every((times) => times.length === 1)).toBe(true);
      // The batches' sends and the turnless one together: no second above the pace.
      expect(busiest, `seed ${seed}`).toBeLessThanOrEqual(80);
      // Each job is received once, and a job whose send gave its turn back once more. When the worker reserved the
      // turns as jobs arrived while acceptance only planned when to show them, each turn given back was reserved
      // again at the end, pushing every later turn further from the plan: 196 reservations, 545 jobs arriving more
      // than 2 s before their turns and queued again, 1,634 receives and 13.8 s (seed 7).
      // Only the job without a turn reserves one, and it does not wait behind the batches' 12.5 s: the slots share the
      // pace between it and them.
      expect(reservedByWorker, `seed ${seed}`).toBe(1);
      expect(lone, `seed ${seed}`).toBeLessThan(1000);
      expect(queuedAgain, `seed ${seed}`).toBe(0);
      expect(received, `seed ${seed}`).toBe(1000 + gaveBack);
      // And the drain keeps the pace: 12.5 s from the first acceptance, with the plan's margin and the tolerance, and a
      // spacing for each turn given back (its send leaves in a later one).
      expect(took, `seed ${seed}`).toBeLessThan(12_500 * 1.025 + gaveBack * 12.7);
    }
  });
});
