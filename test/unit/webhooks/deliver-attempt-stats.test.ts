import { describe, expect, it } from 'vitest';
import type { WebhookAttemptStats } from '#shared/webhooks/attempt-stats.ts';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { sealSnapshot, snapshotOf } from '#shared/webhooks/target-snapshot.ts';
import { FakeDeliveries, FakeDirectory, FakeHealth, FakeQueue, FakeSender, secretBox, webhook } from './fakes.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const body = JSON.stringify({ id: 'evt_1', type: 'message.sent' });

type Recorded = { integrationId: string; at: number; succeeded: boolean; durationMs: number };

function setup(stats: WebhookAttemptStats, sender: FakeSender) {
  const deliveries = new FakeDeliveries();
  const deliver = makeDeliver({
    directory: new FakeDirectory([webhook()]),
    deliveries,
    health: new FakeHealth(),
    attemptStats: stats,
    queue: new FakeQueue(),
    payloads: { put: async () => {}, get: async () => body },
    sender,
    gate: new EndpointGate({
      maxInFlight: 2,
      slowAfterMs: 1000,
      maxWaitMs: 50,
      attemptTimeoutMs: 15_000,
      now: () => T0,
    }),
    secrets: secretBox,
    schedule: parseRetrySchedule('1'),
    userAgent: 'Switchboard/0.1.0',
    now: () => T0,
    random: () => 0,
  });
  return { deliver, deliveries };
}

function message(eventId: string, id: string) {
  const target = webhook();
  const deliveryId = deliveryIdFor(eventId, target.integrationId);
  const job: DeliveryJob = {
    v: 1,
    projectId: 'prj_1',
    integrationId: target.integrationId,
    deliveryId,
    eventId,
    eventType: 'message.sent',
    acceptedAt: T0,
    body,
    attemptsBefore: 0,
    manual: false,
    deferrals: 0,
    sealedTarget: sealSnapshot(secretBox, deliveryId, snapshotOf(target)),
    targetReadAt: T0,
  };
  return { messageId: id, receiptHandle: `rh-${id}`, body: JSON.stringify(job), receiveCount: 1 };
}

describe('deliver: hourly attempt counters', () => {
  it('adds every attempt, succeeded or failed, with its duration, to the counters: one call per batch', async () => {
    const recorded: Recorded[] = [];
    let calls = 0;
    const stats: WebhookAttemptStats = {
      add: async (attempts) => {
        calls++;
        for (const { projectId: _, ...a } of attempts) recorded.push(a);
      },
      hours: async () => [],
    };
    const sender = new FakeSender((request) =>
      request.headers['webhook-id'] === 'evt_ok'
        ? { kind: 'success', statusCode: 200, durationMs: 12 }
        : { kind: 'http-error', statusCode: 500, durationMs: 340, error: 'HTTP 500' },
    );
    const { deliver } = setup(stats, sender);
    await deliver.deliverBatch([message('evt_ok', 'm1'), message('evt_bad', 'm2')]);
    expect(recorded.sort((a, b) => a.durationMs - b.durationMs)).toEqual([
      { integrationId: webhook().integrationId, at: T0, succeeded: true, durationMs: 12 },
      { integrationId: webhook().integrationId, at: T0, succeeded: false, durationMs: 340 },
    ]);
    expect(calls).toBe(1);
  });

  it('a counter store that fails never fails the delivery that happened', async () => {
    const stats: WebhookAttemptStats = {
      add: async () => {
        throw new Error('throttled');
      },
      hours: async () => [],
    };
    const { deliver, deliveries } = setup(stats, new FakeSender());
    expect(await deliver.deliverBatch([message('evt_ok', 'm1')])).toEqual([]);
    expect([...deliveries.records.values()].map((r) => r.status)).toEqual(['succeeded']);
  });
});
