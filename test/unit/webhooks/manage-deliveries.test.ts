import { describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/kernel/domain-error.ts';
import { makeWebhookAdmin } from '#shared/webhooks/manage-deliveries.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import { FakeBodies, FakeDeliveries, FakeDirectory, FakeQueue, webhook } from './fakes.ts';

const project = {
  projectId: 'prj_1',
  companyId: 1042,
  name: 'Acme',
  monthlyBotCredits: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
};

function setup() {
  const deliveries = new FakeDeliveries();
  const bodies = new FakeBodies();
  const queue = new FakeQueue();
  const directory = new FakeDirectory([webhook()]);
  const admin = makeWebhookAdmin({
    projects: { get: async (id) => (id === project.projectId ? project : undefined) },
    channels: { get: async () => undefined },
    webhooks: { getWebhook: (p, i) => directory.getWebhook(p, i), get: async () => undefined },
    deliveries,
    bodies,
    events: new RecordingPublisher(),
    queue,
    now: () => 1_000,
  });
  return { deliveries, bodies, queue, admin };
}

async function failedDelivery(t: ReturnType<typeof setup>, body?: string) {
  await t.deliveries.recordAttempt({
    projectId: 'prj_1',
    integrationId: 'int_1',
    deliveryId: 'dlv_1',
    eventId: 'evt_1',
    eventType: 'message.received',
    attempt: { at: '2026-12-01T10:00:00.000Z', statusCode: 500, durationMs: 3, error: 'HTTP 500' },
    status: 'failed',
    ...(body !== undefined ? { body } : {}),
    manual: false,
  });
}

describe('a retry by hand', () => {
  it('sends again the body stored once for its event when the record does not hold it', async () => {
    const t = setup();
    const body = JSON.stringify({ id: 'evt_1', data: { text: 'x'.repeat(800) } });
    await failedDelivery(t);
    t.bodies.stored.set('evt_1', body);
    expect(await t.admin.retryDelivery('prj_1', 'int_1', 'dlv_1')).toEqual({ deliveryId: 'dlv_1', status: 'pending' });
    expect(t.queue.enqueued.map((q) => q.job)).toEqual([
      expect.objectContaining({ deliveryId: 'dlv_1', eventId: 'evt_1', body, manual: true, attemptsBefore: 1 }),
    ]);
  });

  it("sends the record's own body without reading the store, and refuses when no body is left", async () => {
    const t = setup();
    await failedDelivery(t, '{"id":"evt_1"}');
    t.bodies.stored.set('evt_1', 'not this one');
    await t.admin.retryDelivery('prj_1', 'int_1', 'dlv_1');
    expect(t.queue.enqueued[0]!.job.body).toBe('{"id":"evt_1"}');

    const gone = setup();
    await failedDelivery(gone);
    await expect(gone.admin.retryDelivery('prj_1', 'int_1', 'dlv_1')).rejects.toBeInstanceOf(ConflictError);
    expect(gone.queue.enqueued).toEqual([]);
  });
});
