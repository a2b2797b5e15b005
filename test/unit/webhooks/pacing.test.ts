import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import {
  lanesOf,
  makePacing,
  START_JITTER_ALLOWANCE_MS,
  STARTS_PER_LANE,
  type WebhookPacer,
} from '#shared/webhooks/pacing.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { busiestSecond } from '#test/support/busiest-second.ts';
import { FakeDeliveries, FakeDirectory, FakeHealth, FakeQueue, FakeSender, secretBox, webhook } from './fakes.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** The pacer's contract in memory: the next free start per webhook. */
class MemoryPacer implements WebhookPacer {
  next = new Map<string, number>();
  reads = 0;
  constructor(public limit: number | null) {}
  async limitOf() {
    this.reads++;
    return this.limit;
  }
  last = new Map<string, number>();
  lanes = new Set<number>();
  async reserve(_p: string, integrationId: string, spacingMs: number, now: number, lane = 0) {
    this.lanes.add(lane);
    const key = `${integrationId}#${lane}`;
    const slot = Math.max(now, this.next.get(key) ?? 0);
    this.next.set(key, slot + spacingMs);
    return slot;
  }
  admits = 0;
  async admit(_p: string, integrationId: string, spacingMs: number, now: number, lane = 0) {
    this.admits++;
    const key = `${integrationId}#${lane}`;
    const last = this.last.get(key);
    if (last !== undefined && last > now - spacingMs) return false;
    this.last.set(key, now);
    return true;
  }
  lastReads = 0;
  async lastAdmitted(_p: string, integrationId: string, lane = 0) {
    this.lastReads++;
    return this.last.get(`${integrationId}#${lane}`);
  }
}

function job(n: number): DeliveryJob {
  const eventId = `evt_${n}`;
  return {
    v: 1,
    projectId: 'prj_1',
    integrationId: 'int_1',
    deliveryId: deliveryIdFor(eventId, 'int_1'),
    eventId,
    eventType: 'message.sent',
    acceptedAt: T0,
    body: '{}',
    attemptsBefore: 0,
    manual: false,
    deferrals: 0,
  };
}

/**
 * Jobs arrive together; held-back ones return from the queue after their delay plus a random lateness (a slow
 * queue); waits in the worker end up to `oversleep` late (a busy worker). A job starts when the pacing says go.
 */
async function simulate(limit: number, jobs: number, lateness: () => number, oversleep: () => number = () => 0) {
  const pacer = new MemoryPacer(limit);
  const result = await simulateWith(pacer, jobs, lateness, oversleep);
  return { ...result, lanes: pacer.lanes.size };
}

async function simulateWith(
  pacer: MemoryPacer,
  jobs: number,
  lateness: () => number,
  oversleep: () => number = () => 0,
  /** Worker instances sharing the schedule (Lambda's): each job goes to one of them in turn, skipping around. */
  instances = 1,
) {
  let clock = T0;
  const pacings = Array.from({ length: instances }, () =>
    makePacing({
      pacer,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms + oversleep();
      },
    }),
  );
  let turn = 0;
  const pacing = { pace: (job: DeliveryJob) => pacings[(turn++ * 3) % instances]!.pace(job) };
  const pending: { at: number; job: DeliveryJob }[] = Array.from({ length: jobs }, (_, i) => ({ at: T0, job: job(i) }));
  const starts: number[] = [];
  let requeues = 0;
  while (pending.length) {
    pending.sort((a, b) => a.at - b.at);
    const next = pending.shift()!;
    // Workers run side by side: each job's own waits do not hold the others back.
    clock = next.at;
    const decision = await pacing.pace(next.job);
    if (decision.go) starts.push(clock);
    else {
      requeues++;
      expect(decision.delaySeconds).toBeGreaterThanOrEqual(1);
      pending.push({ at: clock + decision.delaySeconds * 1000 + lateness(), job: decision.job });
    }
    if (requeues > jobs * 50) throw new Error('pacing does not converge');
  }
  return { starts, requeues };
}

describe('pacing (rateLimitPerSecond)', () => {
  it('never starts more than the limit in any sliding second, even with the jitter allowance spent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 120 }),
        fc.infiniteStream(fc.integer({ min: 0, max: 2_500 })),
        fc.infiniteStream(fc.integer({ min: 0, max: 400 })),
        async (limit, jobs, lateness, oversleep) => {
          const { starts } = await simulate(
            limit,
            jobs,
            () => lateness.next().value,
            () => oversleep.next().value,
          );
          expect(starts).toHaveLength(jobs);
          expect(busiestSecond(starts)).toBeLessThanOrEqual(limit);
          // Starts reaching the receiver up to the allowance late still keep the limit there.
          const skewed = starts.map((s, i) => s + (i % 2 ? START_JITTER_ALLOWANCE_MS : 0));
          expect(busiestSecond(skewed)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('splits a limit above one lane into lanes whose limits add up to it, and still keeps it in every second', async () => {
    expect(lanesOf(250)).toEqual([250]);
    expect(lanesOf(251)).toEqual([126, 125]);
    expect(lanesOf(10_000)).toHaveLength(40);
    for (const limit of [1, 249, 251, 999, 1000, 7_777, 10_000]) {
      expect(lanesOf(limit).reduce((a, b) => a + b, 0)).toBe(limit);
      expect(Math.max(...lanesOf(limit))).toBeLessThanOrEqual(STARTS_PER_LANE);
    }
    const { starts, lanes } = await simulate(1_000, 4_000, () => 0);
    expect(lanes).toBe(4);
    expect(starts).toHaveLength(4_000);
    expect(busiestSecond(starts)).toBeLessThanOrEqual(1_000);
    // Lanes taken together still run near the limit: 4,000 jobs in about 4.6 s (the spacing's allowance), not 4x it.
    expect(Math.max(...starts) - T0).toBeLessThan(6_000);
  });

  it('with a punctual queue, 100 jobs at 5/s take about 23 s: held back, never lost', async () => {
    const { starts } = await simulate(5, 100, () => 0);
    expect(Math.max(...starts) - T0).toBeLessThan(25_000);
    expect(busiestSecond(starts)).toBe(5);
  });

  it('an unlimited webhook is not paced and costs one cached read per 2 s', async () => {
    const pacer = new MemoryPacer(null);
    let clock = T0;
    const pacing = makePacing({ pacer, now: () => clock });
    for (let i = 0; i < 50; i++) expect(await pacing.pace(job(i))).toEqual({ go: true });
    expect(pacer.reads).toBe(1);
    clock += 2_500;
    await pacing.pace(job(99));
    expect(pacer.reads).toBe(2);
  });

  it('the jobs of a batch that find the limit stale share one read; a failed read is asked again', async () => {
    const pacer = new MemoryPacer(null);
    let clock = T0;
    const pacing = makePacing({ pacer, now: () => clock });
    const batch = () => Promise.all(Array.from({ length: 10 }, (_, i) => pacing.pace(job(i))));
    expect(await batch()).toEqual(Array.from({ length: 10 }, () => ({ go: true })));
    expect(pacer.reads).toBe(1);
    clock += 2_500;
    await batch();
    expect(pacer.reads).toBe(2);

    clock += 2_500;
    const failing = Object.assign(new MemoryPacer(null), {
      async limitOf(): Promise<number | null> {
        failing.reads++;
        if (failing.reads === 1) throw new Error('throttled');
        return null;
      },
    });
    const afterFailure = makePacing({ pacer: failing, now: () => clock });
    // Not knowing the limit, the job is held back (never let through unpaced).
    expect(await afterFailure.pace(job(1))).toMatchObject({ go: false });
    expect(await afterFailure.pace(job(2))).toEqual({ go: true });
    expect(failing.reads).toBe(2);
  });

  it('a limit change applies within seconds, whatever the job carries', async () => {
    const pacer = new MemoryPacer(null);
    let clock = T0;
    const pacing = makePacing({ pacer, now: () => clock, sleep: async () => {} });
    await pacing.pace(job(0));
    pacer.limit = 1;
    clock += 2_000;
    expect((await pacing.pace(job(1))).go).toBe(true);
    const held = await pacing.pace(job(2));
    expect(held).toMatchObject({ go: false, delaySeconds: 1 });
  });
});

describe('pacing when the worker wakes late', () => {
  it.each([1, 4])(
    'asks for admission about once a start, not on a poll, when every wait ends late (%i worker instances)',
    async (instances) => {
      // A busy worker: each wait ends 10-60 ms later than asked, and jobs come back from the queue up to 300 ms late.
      // A job waits for the spacing from the lane's last start its instance knows of; a refused admission reads the
      // last start and waits for the spacing from it. Polling every 50 ms instead made 1,193 admissions here (each a
      // conditional write on AWS) for 100 starts on one instance.
      let n = 0;
      const pacer = new MemoryPacer(5);
      const { starts, requeues } = await simulateWith(
        pacer,
        100,
        () => (n * 37) % 300,
        () => 10 + ((n++ * 13) % 50),
        instances,
      );
      expect(starts).toHaveLength(100);
      expect(busiestSecond(starts)).toBeLessThanOrEqual(5);
      expect(pacer.admits).toBeLessThanOrEqual((instances === 1 ? 1.05 : 2.2) * 100);
      expect(pacer.lastReads).toBeLessThanOrEqual((instances === 1 ? 0.05 : 1.1) * 100);
      expect(requeues).toBeLessThanOrEqual(1.1 * 100);
      // Still about the limit's pace: 100 starts at 5/s with the spacing's allowance take ~23 s, here a few more.
      expect(Math.max(...starts) - T0).toBeLessThan(28_000);
    },
  );

  it('does not start on a reserved time it overslept before the spacing allows', async () => {
    const pacer = new MemoryPacer(5);
    let clock = T0;
    let sleeps = 0;
    const pacing = makePacing({
      pacer,
      now: () => clock,
      // A loaded worker: every other wait ends 300 ms later than asked.
      sleep: async (ms) => {
        clock += ms + (sleeps++ % 2 ? 0 : 300);
      },
    });
    expect(await pacing.pace(job(0))).toEqual({ go: true }); // reserved T0, no wait
    const startedAt: number[] = [T0];
    for (let i = 1; i < 5; i++) {
      expect(await pacing.pace(job(i))).toEqual({ go: true });
      startedAt.push(clock);
    }
    for (let i = 1; i < startedAt.length; i++) {
      expect(startedAt[i]! - startedAt[i - 1]!).toBeGreaterThanOrEqual(1060 / 5);
    }
  });
});

/** The deliver use case at T0 with `pacer`'s schedule, and what it sends and writes. */
function deliverPacedBy(pacer: WebhookPacer) {
  const now = () => T0;
  const queue = new FakeQueue();
  const deliveries = new FakeDeliveries();
  const sender = new FakeSender();
  const deliver = makeDeliver({
    directory: new FakeDirectory([webhook()]),
    deliveries,
    health: new FakeHealth(),
    queue,
    payloads: { put: async () => {}, get: async () => undefined },
    sender,
    gate: new EndpointGate({ maxInFlight: 10, slowAfterMs: 1000, maxWaitMs: 50, attemptTimeoutMs: 15_000, now }),
    pacing: makePacing({ pacer, now, sleep: async () => {} }),
    secrets: secretBox,
    schedule: parseRetrySchedule(undefined),
    userAgent: 'Switchboard/0.1.0',
    now,
  });
  return { queue, deliveries, sender, deliver };
}

describe('deliver with pacing', () => {
  it('holds a job back when its schedule cannot be written (a throttled write): no attempt, retried, never lost', async () => {
    const pacer = Object.assign(new MemoryPacer(5), {
      async reserve(): Promise<number> {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ProvisionedThroughputExceededException',
        });
      },
    });
    const { queue, deliveries, sender, deliver } = deliverPacedBy(pacer);
    const failed = await deliver.deliverBatch([
      {
        messageId: 'm0',
        receiptHandle: 'rh0',
        body: JSON.stringify({ ...job(0), attemptsBefore: 1 }),
        receiveCount: 1,
      },
    ]);
    expect(failed).toEqual([]);
    expect(sender.requests).toHaveLength(0);
    expect(deliveries.writes).toHaveLength(0);
    expect(queue.enqueued).toHaveLength(1);
    expect(queue.enqueued[0]!.job).toMatchObject({ deliveryId: job(0).deliveryId, attemptsBefore: 1 });
    expect(queue.enqueued[0]!.job.pacedStartAt).toBeUndefined();
    expect(queue.enqueued[0]!.delaySeconds).toBeGreaterThanOrEqual(2);
  });

  it('puts a held-back job back on the queue with a delay: no attempt, no request, no change to its count', async () => {
    const pacer = new MemoryPacer(1);
    const { queue, deliveries, sender, deliver } = deliverPacedBy(pacer);
    const messages = [0, 1, 2].map((i) => ({
      messageId: `m${i}`,
      receiptHandle: `rh${i}`,
      body: JSON.stringify({ ...job(i), attemptsBefore: 2, notBefore: T0 }),
      receiveCount: 1,
    }));
    const failed = await deliver.deliverBatch(messages);
    expect(failed).toEqual([]);
    expect(sender.requests).toHaveLength(1);
    expect(deliveries.writes).toHaveLength(1);
    expect(queue.enqueued).toHaveLength(2);
    for (const queued of queue.enqueued) {
      expect(queued.job.attemptsBefore).toBe(2);
      expect(queued.job.pacedStartAt).toBeGreaterThan(T0);
      expect(queued.delaySeconds).toBeGreaterThanOrEqual(1);
    }
  });
});
