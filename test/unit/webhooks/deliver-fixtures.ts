import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { sealSnapshot, snapshotOf } from '#shared/webhooks/target-snapshot.ts';
import { FakeDeliveries, FakeDirectory, FakeHealth, FakeQueue, FakeSender, secretBox, webhook } from './fakes.ts';

/** The deliver use case over fakes at a fixed clock, its jobs and their queue messages, shared by the deliver tests. */

export const T0 = Date.parse('2026-11-21T10:00:00.000Z');
export const body = JSON.stringify({ id: 'evt_1', type: 'message.sent' });

export function setup(
  options: { schedule?: string; sender?: FakeSender; webhooks?: ReturnType<typeof webhook>[]; now?: () => number } = {},
) {
  const directory = new FakeDirectory(options.webhooks ?? [webhook()]);
  const deliveries = new FakeDeliveries();
  const health = new FakeHealth();
  const queue = new FakeQueue();
  const sender = options.sender ?? new FakeSender();
  let clock = T0;
  const now = options.now ?? (() => clock);
  const deliver = makeDeliver({
    directory,
    deliveries,
    health,
    queue,
    payloads: { put: async () => {}, get: async () => body },
    sender,
    gate: new EndpointGate({ maxInFlight: 2, slowAfterMs: 1000, maxWaitMs: 50, attemptTimeoutMs: 15_000, now }),
    secrets: secretBox,
    schedule: parseRetrySchedule(options.schedule),
    userAgent: 'Switchboard/0.1.0',
    now,
    random: () => 0,
  });
  return {
    directory,
    deliveries,
    health,
    queue,
    sender,
    deliver,
    advance: (ms: number) => (clock += ms),
    at: () => clock,
  };
}

export function job(overrides: Partial<DeliveryJob> = {}, target = webhook()): DeliveryJob {
  const deliveryId = deliveryIdFor('evt_1', target.integrationId);
  return {
    v: 1,
    projectId: 'prj_1',
    integrationId: target.integrationId,
    deliveryId,
    eventId: 'evt_1',
    eventType: 'message.sent',
    acceptedAt: T0,
    body,
    attemptsBefore: 0,
    manual: false,
    deferrals: 0,
    sealedTarget: sealSnapshot(secretBox, deliveryId, snapshotOf(target)),
    targetReadAt: T0,
    ...overrides,
  };
}

export const message = (j: DeliveryJob, receiveCount = 1, id = 'm1') => ({
  messageId: id,
  receiptHandle: `rh-${id}`,
  body: JSON.stringify(j),
  receiveCount,
});
