import { describe, expect, it } from 'vitest';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import { MAX_RETRY_AFTER_MS, parseRetryAfterMs } from '#shared/webhooks/retry-after.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import type { AttemptOutcome } from '#shared/webhooks/ports.ts';
import { FakeDeliveries, FakeDirectory, FakeHealth, FakeQueue, FakeSender, secretBox, webhook } from './fakes.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates, caps at 24 h, and ignores what does not parse', () => {
    expect(parseRetryAfterMs('2', T0)).toBe(2_000);
    expect(parseRetryAfterMs(' 120 ', T0)).toBe(120_000);
    expect(parseRetryAfterMs('0', T0)).toBe(0);
    expect(parseRetryAfterMs(new Date(T0 + 30_000).toUTCString(), T0)).toBe(30_000);
    expect(parseRetryAfterMs(new Date(T0 - 30_000).toUTCString(), T0)).toBe(0);
    expect(parseRetryAfterMs('99999999999', T0)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', T0)).toBe(MAX_RETRY_AFTER_MS);
    for (const garbage of ['-5', '1.5', 'soon', '', '2s', '1e3', 'Thu, 99 Foo 2026 99:99:99 GMT', undefined]) {
      expect(parseRetryAfterMs(garbage, T0)).toBeUndefined();
    }
  });
});

function setup(answer: () => AttemptOutcome, schedule = '5,300') {
  const deliveries = new FakeDeliveries();
  const queue = new FakeQueue();
  const now = () => T0;
  const deliver = makeDeliver({
    directory: new FakeDirectory([webhook()]),
    deliveries,
    health: new FakeHealth(),
    queue,
    payloads: { put: async () => {}, get: async () => undefined },
    sender: new FakeSender(answer),
    gate: new EndpointGate({ maxInFlight: 2, slowAfterMs: 1000, maxWaitMs: 50, attemptTimeoutMs: 15_000, now }),
    secrets: secretBox,
    schedule: parseRetrySchedule(schedule),
    userAgent: 'Switchboard/0.1.0',
    now,
    random: () => 0,
  });
  return { deliver, deliveries, queue };
}

function job(): DeliveryJob {
  return {
    v: 1,
    projectId: 'prj_1',
    integrationId: 'int_1',
    deliveryId: deliveryIdFor('evt_1', 'int_1'),
    eventId: 'evt_1',
    eventType: 'message.sent',
    acceptedAt: T0,
    body: '{}',
    attemptsBefore: 0,
    manual: false,
    deferrals: 0,
  };
}
const message = (j: DeliveryJob) => ({
  messageId: 'm1',
  receiptHandle: 'rh',
  body: JSON.stringify(j),
  receiveCount: 1,
});
const answer =
  (statusCode: number, retryAfter?: string): (() => AttemptOutcome) =>
  () => ({
    kind: 'http-error',
    statusCode,
    durationMs: 1,
    error: `HTTP ${statusCode}`,
    ...(retryAfter ? { retryAfter } : {}),
  });

describe('deliver honours Retry-After on 429 and 503', () => {
  it('waits what the receiver asked when it is longer than the schedule, and shows it as nextAttemptAt', async () => {
    const t = setup(answer(429, '120'));
    await t.deliver.deliverBatch([message(job())]);
    expect(t.queue.postponed).toEqual([{ receiptHandle: 'rh', seconds: 120 }]);
    expect(t.deliveries.writes[0]).toMatchObject({
      status: 'pending',
      nextAttemptAt: T0 + 120_000,
      attempt: { statusCode: 429 },
    });
  });

  it('keeps the schedule when Retry-After is shorter, garbage, or on another status', async () => {
    for (const [status, header] of [
      [503, '2'],
      [503, 'later please'],
      [429, '-30'],
      [500, '600'],
    ] as const) {
      const t = setup(answer(status, header));
      await t.deliver.deliverBatch([message(job())]);
      expect(t.queue.postponed).toEqual([{ receiptHandle: 'rh', seconds: 5 }]);
    }
  });

  it('a Retry-After of days waits 24 h, past what one message may stay invisible (re-sent with notBefore)', async () => {
    const t = setup(answer(503, String(10 * 86400)));
    await t.deliver.deliverBatch([message(job())]);
    expect(t.deliveries.writes[0]).toMatchObject({ nextAttemptAt: T0 + MAX_RETRY_AFTER_MS });
    expect(t.queue.enqueued[0]!.job.notBefore).toBe(T0 + MAX_RETRY_AFTER_MS);
  });

  it('the last attempt fails the delivery whatever Retry-After says', async () => {
    const t = setup(answer(429, '60'), '');
    const last = { ...job(), attemptsBefore: 7, notBefore: T0 };
    await t.deliver.deliverBatch([message(last)]);
    expect(t.deliveries.writes[0]).toMatchObject({ status: 'failed' });
    expect(t.queue.postponed).toEqual([]);
  });
});
