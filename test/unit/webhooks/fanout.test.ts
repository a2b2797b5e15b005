import { describe, expect, it } from 'vitest';
import { applicableWebhooks, makeFanout } from '#shared/webhooks/fanout.ts';
import type { EventMessage } from '#shared/events/index.ts';
import { openSnapshot } from '#shared/webhooks/target-snapshot.ts';
import { FakeBodies, FakeDirectory, FakeQueue, secretBox, webhook } from './fakes.ts';

const general = webhook({ integrationId: 'int_g', scope: 'general', url: 'https://g.example.com' });
const smsHook = webhook({
  integrationId: 'int_s',
  scope: 'channel',
  channelId: 'ch_sms',
  url: 'https://s.example.com',
  bearerToken: 'tok',
});
const emailHook = webhook({ integrationId: 'int_e', scope: 'channel', channelId: 'ch_email' });
const readOnly = webhook({
  integrationId: 'int_r',
  scope: 'channel',
  channelId: 'ch_sms',
  eventTypes: ['message.read'],
});
const disabled = webhook({
  integrationId: 'int_d',
  scope: 'channel',
  channelId: 'ch_sms',
  enabled: false,
  disabledReason: 'manual',
});
const all = [general, smsHook, emailHook, readOnly, disabled];

const event = (overrides: Partial<EventMessage> = {}): EventMessage => ({
  v: 1,
  eventId: 'evt_1',
  eventType: 'message.sent',
  projectId: 'prj_1',
  channelId: 'ch_sms',
  acceptedAt: 1,
  body: '{"id":"evt_1"}',
  ...overrides,
});

describe('applicableWebhooks', () => {
  it('is the union of the general webhook and the event channel ones, filtered, enabled only', () => {
    expect(applicableWebhooks(all, event()).map((w) => w.integrationId)).toEqual(['int_g', 'int_s']);
    expect(applicableWebhooks(all, event({ eventType: 'message.read' })).map((w) => w.integrationId)).toEqual([
      'int_g',
      'int_s',
      'int_r',
    ]);
    expect(applicableWebhooks(all, event({ channelId: null })).map((w) => w.integrationId)).toEqual(['int_g']);
  });

  it('sends a targeted test event to that webhook only, whatever its filter or state', () => {
    expect(
      applicableWebhooks(all, event({ eventType: 'webhook.test', onlyIntegrationId: 'int_d' })).map(
        (w) => w.integrationId,
      ),
    ).toEqual(['int_d']);
    expect(
      applicableWebhooks(all, event({ eventType: 'webhook.test', onlyIntegrationId: 'int_r' })).map(
        (w) => w.integrationId,
      ),
    ).toEqual(['int_r']);
  });
});

const large = JSON.stringify({ id: 'evt_2', data: { text: 'x'.repeat(600) } });

describe('fanout', () => {
  it('makes one job per applicable webhook with the body and a sealed snapshot, one query per project', async () => {
    const directory = new FakeDirectory(all);
    const queue = new FakeQueue();
    const bodies = new FakeBodies();
    const fanout = makeFanout({ directory, queue, bodies, secrets: secretBox, now: () => 5 });
    const failed = await fanout.fanoutBatch([
      { messageId: 'm1', body: JSON.stringify(event()) },
      {
        messageId: 'm2',
        body: JSON.stringify(event({ eventId: 'evt_2', channelId: 'ch_email', body: large })),
      },
      { messageId: 'm3', body: 'not json' },
    ]);
    expect(failed).toEqual(['m3']);
    expect(directory.lists).toBe(1);
    expect(queue.enqueued.map((q) => [q.job.eventId, q.job.integrationId])).toEqual([
      ['evt_1', 'int_g'],
      ['evt_1', 'int_s'],
      ['evt_2', 'int_g'],
      ['evt_2', 'int_e'],
    ]);
    const smsJob = queue.enqueued[1]!.job;
    expect(smsJob).toMatchObject({
      body: '{"id":"evt_1"}',
      attemptsBefore: 0,
      manual: false,
      deferrals: 0,
      targetReadAt: 5,
    });
    expect(JSON.stringify(smsJob)).not.toContain('tok');
    // A body too large for each delivery record is stored once, whatever the number of its webhooks; a small one
    // stays in the records.
    expect(bodies.puts).toBe(1);
    expect(bodies.stored.get('evt_2')).toBe(large);
    expect(queue.enqueued[2]!.job.body).toBe(large);
    expect(openSnapshot(secretBox, smsJob.deliveryId, smsJob.sealedTarget!)).toEqual({
      url: 'https://s.example.com',
      bearerToken: 'tok',
      signingSecrets: smsHook.signingSecrets,
      signingKeys: [],
      enabled: true,
    });
  });

  it('gives the same delivery id when an event is fanned out twice', async () => {
    const queue = new FakeQueue();
    const fanout = makeFanout({
      directory: new FakeDirectory(all),
      queue,
      bodies: new FakeBodies(),
      secrets: secretBox,
    });
    await fanout.fanoutBatch([{ messageId: 'm1', body: JSON.stringify(event()) }]);
    await fanout.fanoutBatch([{ messageId: 'm1', body: JSON.stringify(event()) }]);
    expect(queue.enqueued[0]!.job.deliveryId).toBe(queue.enqueued[2]!.job.deliveryId);
  });

  it('receives an event again when its webhooks cannot be read or its jobs not enqueued', async () => {
    const directory = new FakeDirectory(all);
    directory.listWebhooks = async () => {
      throw new Error('throttled');
    };
    const fanout = makeFanout({ directory, queue: new FakeQueue(), bodies: new FakeBodies(), secrets: secretBox });
    expect(await fanout.fanoutBatch([{ messageId: 'm1', body: JSON.stringify(event()) }])).toEqual(['m1']);
    const queue = new FakeQueue();
    queue.enqueue = async (jobs) => new Set(jobs.map((_, i) => i).filter((i) => i === 1));
    const partial = makeFanout({
      directory: new FakeDirectory(all),
      queue,
      bodies: new FakeBodies(),
      secrets: secretBox,
    });
    expect(
      await partial.fanoutBatch([
        { messageId: 'm1', body: JSON.stringify(event()) },
        { messageId: 'm2', body: JSON.stringify(event({ eventId: 'evt_2', channelId: null })) },
      ]),
    ).toEqual(['m1']);
  });
});

describe('fanout: ordering keys, filters and notices', () => {
  const envelopeOf = (channelType: string, data: Record<string, unknown>) =>
    JSON.stringify({ id: 'evt_x', type: 'message.received', channel: { id: 'ch_sms', type: channelType }, data });

  it('applies each webhook’s filter to the envelope, parsing it only when a filter asks', async () => {
    const filtered = webhook({
      integrationId: 'int_f',
      filter: { all: [{ field: 'channel.type', op: 'eq', value: 'whatsapp' }] },
    });
    const queue = new FakeQueue();
    const fanout = makeFanout({
      directory: new FakeDirectory([general, filtered]),
      queue,
      bodies: new FakeBodies(),
      secrets: secretBox,
    });
    await fanout.fanoutBatch([
      { messageId: 'm1', body: JSON.stringify(event({ eventId: 'evt_1', body: envelopeOf('sms', {}) })) },
      { messageId: 'm2', body: JSON.stringify(event({ eventId: 'evt_2', body: envelopeOf('whatsapp', {}) })) },
    ]);
    expect(queue.enqueued.map((q) => [q.job.eventId, q.job.integrationId])).toEqual([
      ['evt_1', 'int_g'],
      ['evt_2', 'int_g'],
      ['evt_2', 'int_f'],
    ]);
    // A large body is read from the payload store for the filter.
    const large = new FakeQueue();
    const payloads = { get: async () => envelopeOf('whatsapp', {}) };
    await makeFanout({
      bodies: new FakeBodies(),
      directory: new FakeDirectory([filtered]),
      queue: large,
      secrets: secretBox,
      payloads,
    }).fanoutBatch([
      {
        messageId: 'm3',
        body: JSON.stringify(event({ eventId: 'evt_3', body: undefined, bodyRef: 'payloads/evt_3.json' })),
      },
    ]);
    expect(large.enqueued).toHaveLength(1);
  });

  it('marks the jobs of ordered webhooks with the event’s ordering key; a test is never ordered', async () => {
    const ordered = webhook({ integrationId: 'int_o', ordering: 'conversation' });
    const queue = new FakeQueue();
    const fanout = makeFanout({
      directory: new FakeDirectory([ordered, smsHook]),
      queue,
      bodies: new FakeBodies(),
      secrets: secretBox,
    });
    await fanout.fanoutBatch([
      { messageId: 'm1', body: JSON.stringify(event({ eventId: 'evt_1', conversationId: 'c-9' })) },
      { messageId: 'm2', body: JSON.stringify(event({ eventId: 'evt_2' })) },
      {
        messageId: 'm3',
        body: JSON.stringify(event({ eventId: 'evt_3', eventType: 'webhook.test', onlyIntegrationId: 'int_o' })),
      },
    ]);
    expect(queue.enqueued.map((q) => [q.job.eventId, q.job.integrationId, q.job.ordered, q.job.orderKey])).toEqual([
      ['evt_1', 'int_o', true, 'conversation:c-9'],
      ['evt_1', 'int_s', undefined, 'conversation:c-9'],
      ['evt_2', 'int_o', true, 'channel:ch_sms'],
      ['evt_2', 'int_s', undefined, 'channel:ch_sms'],
      ['evt_3', 'int_o', undefined, 'channel:ch_sms'],
    ]);
  });

  it('leaves out the webhook a notice is about', () => {
    expect(
      applicableWebhooks(all, event({ eventType: 'webhook.failing', channelId: null, exceptIntegrationId: 'int_g' })),
    ).toEqual([]);
    expect(
      applicableWebhooks(
        all,
        event({ eventType: 'webhook.failing', channelId: null, exceptIntegrationId: 'int_s' }),
      ).map((w) => w.integrationId),
    ).toEqual(['int_g']);
  });

  it('fails every later event of a conversation after one that failed, so none overtakes it', async () => {
    const filtered = webhook({ integrationId: 'int_f', filter: { all: [{ field: 'id', op: 'exists' }] } });
    const queue = new FakeQueue();
    // Without a payload store a large body cannot be read for the filter: that event fails.
    const fanout = makeFanout({
      directory: new FakeDirectory([filtered]),
      queue,
      bodies: new FakeBodies(),
      secrets: secretBox,
    });
    const failed = await fanout.fanoutBatch([
      {
        messageId: 'm1',
        body: JSON.stringify(event({ eventId: 'evt_1', conversationId: 'a', body: undefined, bodyRef: 'x' })),
      },
      { messageId: 'm2', body: JSON.stringify(event({ eventId: 'evt_2', conversationId: 'a' })) },
      { messageId: 'm3', body: JSON.stringify(event({ eventId: 'evt_3', conversationId: 'b' })) },
      { messageId: 'm4', body: JSON.stringify(event({ eventId: 'evt_4', conversationId: 'a' })) },
    ]);
    expect(failed.sort()).toEqual(['m1', 'm2', 'm4']);
    expect(queue.enqueued.map((q) => q.job.eventId)).toEqual(['evt_3']);
  });
});
