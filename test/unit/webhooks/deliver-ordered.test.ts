import { describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { MAX_POSTPONE_SECONDS } from '#shared/webhooks/delivery-steps.ts';
import type { DeliveryJob } from '#shared/webhooks/model.ts';
import { FakeSender } from './fakes.ts';
import { setup, job, message } from './deliver-fixtures.ts';

/** Jobs of an ordered webhook (a FIFO queue): retries wait in place, a group's jobs go one after another. */
describe('deliver: ordered jobs (FIFO queue)', () => {
  const ordered = (overrides: Partial<DeliveryJob> = {}) =>
    job({ ordered: true, orderKey: 'conversation:c1', ...overrides });
  const fifoMessage = (j: DeliveryJob, receiveCount = 1, id = 'm1', groupId = 'int_1.g1') => ({
    ...message(j, receiveCount, id),
    groupId,
  });

  it('waits for a retry in place, never as a new message, even past what a message may stay invisible', async () => {
    const t = setup({
      schedule: '50000',
      sender: new FakeSender(() => ({ kind: 'http-error', statusCode: 500, durationMs: 1, error: 'HTTP 500' })),
    });
    await t.deliver.deliverBatch([fifoMessage(ordered())]);
    expect(t.queue.enqueued).toEqual([]);
    expect(t.queue.postponed).toEqual([{ receiptHandle: 'rh-m1', seconds: MAX_POSTPONE_SECONDS, ordered: true }]);
    // Received again before its time: the record says when; postponed again without an attempt.
    t.advance(MAX_POSTPONE_SECONDS * 1000);
    await t.deliver.deliverBatch([fifoMessage(ordered(), 2)]);
    expect(t.sender.requests).toHaveLength(1);
    expect(t.queue.postponed.at(-1)!.seconds).toBe(50_000 - MAX_POSTPONE_SECONDS);
    // Due: the second attempt, numbered from the record, not from the receive count.
    t.advance(50_000 * 1000);
    await t.deliver.deliverBatch([fifoMessage(ordered(), 3)]);
    expect(t.sender.requests).toHaveLength(2);
    expect(t.deliveries.writes.at(-1)).toMatchObject({ status: 'failed' });
  });

  it('a re-received job whose delivery already succeeded or failed sends nothing', async () => {
    const t = setup();
    await t.deliver.deliverBatch([fifoMessage(ordered())]);
    expect(t.sender.requests).toHaveLength(1);
    expect(await t.deliver.deliverBatch([fifoMessage(ordered(), 2)])).toEqual([]);
    expect(t.sender.requests).toHaveLength(1);
  });

  it('keeps the first attempt’s ordering key on the record, for a manual retry to queue by', async () => {
    const t = setup();
    await t.deliver.deliverBatch([fifoMessage(ordered())]);
    expect(t.deliveries.writes[0]).toMatchObject({ orderKey: 'conversation:c1' });
  });

  it('attempts one group’s messages one after another; after one that is not done the rest wait as long', async () => {
    const order: string[] = [];
    const t = setup({
      schedule: '7',
      sender: new FakeSender((request) => {
        order.push(request.headers['webhook-id']!);
        return request.headers['webhook-id'] === 'evt_2'
          ? { kind: 'http-error', statusCode: 503, durationMs: 1, error: 'HTTP 503' }
          : { kind: 'success', statusCode: 200, durationMs: 1 };
      }),
    });
    const kept = await t.deliver.deliverBatch([
      fifoMessage(ordered({ eventId: 'evt_1', deliveryId: 'dlv_1' }), 1, 'a'),
      fifoMessage(ordered({ eventId: 'evt_2', deliveryId: 'dlv_2' }), 1, 'b'),
      fifoMessage(ordered({ eventId: 'evt_3', deliveryId: 'dlv_3' }), 1, 'c'),
      fifoMessage(ordered({ eventId: 'evt_4', deliveryId: 'dlv_4' }), 1, 'd', 'int_1.g2'),
    ]);
    expect(order.sort()).toEqual(['evt_1', 'evt_2', 'evt_4']);
    expect(kept.sort()).toEqual(['b', 'c']);
    expect(t.queue.postponed).toEqual([
      { receiptHandle: 'rh-b', seconds: 7, ordered: true },
      { receiptHandle: 'rh-c', seconds: 7, ordered: true },
    ]);
  });

  it('a job the endpoint gate turns away waits in place', async () => {
    const hangs: (() => void)[] = [];
    const t = setup({
      now: Date.now,
      sender: new FakeSender(
        () => new Promise((resolve) => hangs.push(() => resolve({ kind: 'timeout', durationMs: 15_000, error: 'x' }))),
      ),
    });
    const fresh = (id: string) =>
      fifoMessage(
        ordered({ eventId: `evt_${id}`, deliveryId: `dlv_${id}`, targetReadAt: Date.now() }),
        1,
        id,
        `g-${id}`,
      );
    const batch = t.deliver.deliverBatch(['a', 'b', 'c'].map(fresh));
    await eventually(async () => hangs.length === 2, 10_000, 'two attempts hanging');
    for (const h of hangs) h();
    await batch;
    // Two attempts hang (the gate's limit here), the third job is turned away: postponed in place, not re-sent.
    expect(t.sender.requests).toHaveLength(2);
    expect(t.queue.enqueued).toEqual([]);
    expect(t.queue.postponed.filter((p) => p.receiptHandle === 'rh-c')).toEqual([
      { receiptHandle: 'rh-c', seconds: expect.any(Number), ordered: true },
    ]);
  });
});
