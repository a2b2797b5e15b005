import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '#shared/kernel/domain-error.ts';
import type { DeliveryRecord } from '#shared/webhooks/model.ts';
import type { QueuedJob } from '#shared/webhooks/ports.ts';
import {
  makeRecoverFailedDeliveries,
  type FailedDeliveries,
  type FailedWindow,
  type RecoverMessage,
} from '#shared/webhooks/recover.ts';
import { FakeBodies, FakeDirectory, webhook } from './fakes.ts';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');

/** Failed deliveries in memory, pages of `pageSize`, claims as the conditional write would make them. */
class MemoryFailed implements FailedDeliveries {
  records = new Map<string, DeliveryRecord & { eventTime: number }>();
  /** Where the fan-out stored each event's body once. */
  bodies = new FakeBodies();
  constructor(private readonly pageSize = 3) {}
  add(n: number, eventTime: number) {
    const id = `dlv_${String(n).padStart(4, '0')}`;
    this.records.set(id, {
      deliveryId: id,
      projectId: 'prj_1',
      integrationId: 'int_1',
      eventId: `evt_${n}`,
      eventType: 'message.sent',
      status: 'failed',
      attempts: [{ at: 'x', statusCode: 500, durationMs: 1 }],
      eventTime,
    });
    this.bodies.stored.set(`evt_${n}`, `{"n":${n}}`);
  }
  async page(_p: string, _i: string, window: FailedWindow, cursor?: string) {
    const ids = [...this.records.values()]
      .filter(
        (r) =>
          r.status === 'failed' &&
          r.eventTime >= window.since &&
          (window.until === undefined || r.eventTime < window.until),
      )
      .map((r) => r.deliveryId)
      .sort()
      .filter((id) => cursor === undefined || id > cursor);
    const deliveryIds = ids.slice(0, this.pageSize);
    return { deliveryIds, ...(ids.length > this.pageSize ? { nextCursor: deliveryIds.at(-1)! } : {}) };
  }
  async claim(_p: string, _i: string, id: string) {
    const r = this.records.get(id);
    if (r?.status !== 'failed') return undefined;
    r.status = 'pending';
    return { ...r };
  }
  async release(_p: string, _i: string, id: string) {
    const r = this.records.get(id);
    if (r?.status === 'pending') r.status = 'failed';
  }
}

function setup(options: { budgetMs?: number; failEnqueue?: (job: QueuedJob) => boolean } = {}) {
  const failed = new MemoryFailed();
  const enqueued: QueuedJob[] = [];
  const continued: RecoverMessage[] = [];
  let clock = NOW;
  const directory = new FakeDirectory([webhook()]);
  const recover = makeRecoverFailedDeliveries({
    webhooks: directory,
    failed,
    bodies: failed.bodies,
    queue: {
      async enqueue(jobs) {
        const notSent = new Set<number>();
        jobs.forEach((j, i) => {
          if (options.failEnqueue?.(j)) notSent.add(i);
          else enqueued.push(j);
        });
        return notSent;
      },
      async postpone() {
        return new Set();
      },
    },
    continuation: { continueLater: async (m) => void continued.push(m) },
    budgetMs: options.budgetMs ?? 60_000,
    // Each read of the clock is 1 s later: the budget runs out after a few pages.
    now: () => (clock += options.budgetMs === undefined ? 0 : 1000),
  });
  return { failed, enqueued, continued, recover, directory };
}

describe('recover', () => {
  it('queues a manual retry of each failed delivery in [since, until), the same delivery and body', async () => {
    const t = setup();
    for (let n = 0; n < 8; n++) t.failed.add(n, NOW - 10_000 + n * 1000);
    const out = await t.recover.recover('prj_1', 'int_1', {
      since: new Date(NOW - 8_000),
      until: new Date(NOW - 4_000),
    });
    expect(out).toEqual({ recovered: 4, continued: false });
    expect(t.enqueued.map((q) => q.job.deliveryId)).toEqual(['dlv_0002', 'dlv_0003', 'dlv_0004', 'dlv_0005']);
    expect(t.enqueued[0]!.job).toMatchObject({ manual: true, attemptsBefore: 1, body: '{"n":2}', eventId: 'evt_2' });
    // Run again: nothing is failed in the window any more.
    expect((await t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 8_000) })).recovered).toBe(2);
  });

  it('leaves failed a delivery whose stored body is gone, and still recovers the others', async () => {
    const t = setup();
    for (let n = 0; n < 3; n++) t.failed.add(n, NOW - 1000);
    t.failed.bodies.stored.delete('evt_1');
    expect((await t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 60_000) })).recovered).toBe(2);
    expect(t.enqueued.map((q) => q.job.body)).toEqual(['{"n":0}', '{"n":2}']);
    expect(t.failed.records.get('dlv_0001')!.status).toBe('failed');
  });

  it('gives back what could not be queued: failed again, found by the next recover', async () => {
    const t = setup({ failEnqueue: (q) => q.job.deliveryId === 'dlv_0001' });
    for (let n = 0; n < 3; n++) t.failed.add(n, NOW - 1000);
    expect((await t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 60_000) })).recovered).toBe(2);
    expect(t.failed.records.get('dlv_0001')!.status).toBe('failed');
  });

  it('hands the rest to a worker when its time runs out, and the worker finishes it', async () => {
    const t = setup({ budgetMs: 2_500 });
    for (let n = 0; n < 10; n++) t.failed.add(n, NOW - 1000);
    const out = await t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 60_000) });
    expect(out.continued).toBe(true);
    expect(out.recovered).toBeLessThan(10);
    expect(t.continued).toHaveLength(1);
    let resumed = out.recovered;
    while (t.continued.length) resumed += await t.recover.resume(t.continued.shift()!);
    expect(resumed).toBe(10);
    expect(new Set(t.enqueued.map((q) => q.job.deliveryId)).size).toBe(10);
  });

  it('refuses a reversed window or one over 30 days back, and a disabled webhook', async () => {
    const t = setup();
    const reversed = t.recover.recover('prj_1', 'int_1', { since: new Date(NOW), until: new Date(NOW - 1) });
    await expect(reversed).rejects.toBeInstanceOf(ValidationError);
    const old = t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 31 * 86400_000) });
    await expect(old).rejects.toMatchObject({ details: [expect.objectContaining({ path: 'since' })] });
    t.directory.webhooks[0]!.enabled = false;
    await expect(t.recover.recover('prj_1', 'int_1', { since: new Date(NOW - 1000) })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });
});
