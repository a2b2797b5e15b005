import { describe, expect, it } from 'vitest';
import { checkEventData } from '#shared/events/index.ts';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import { makeNoticeEmails, type NoticeEmail } from '#shared/webhooks/notice-emails.ts';
import { makeWebhookNotices } from '#shared/webhooks/notices.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import {
  FakeDeliveries,
  FakeDirectory,
  FakeHealth,
  FakeQueue,
  FakeSender,
  webhook,
} from '#test/support/fakes/webhooks.ts';
import { secretBox } from '#test/support/fakes/webhooks.ts';
import type { Project } from '#shared/projects/index.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const project: Project = {
  projectId: 'prj_1',
  companyId: 1042,
  name: 'Acme',
  monthlyBotCredits: 0,
  contactEmail: 'ops@acme.example',
  createdAt: '2026-01-01T00:00:00.000Z',
};

function setup(options: { failingAfter?: number; answer?: () => number } = {}) {
  const publisher = new RecordingPublisher(() => new Date(T0));
  const directory = new FakeDirectory([webhook()]);
  const health = new FakeHealth();
  let clock = T0;
  const notices = makeWebhookNotices({
    publisher,
    projects: { get: async (id) => (id === project.projectId ? project : undefined) },
    directory,
    health,
    failingAfter: options.failingAfter ?? 3,
    now: () => clock,
  });
  const status = options.answer ?? (() => 500);
  const deliver = makeDeliver({
    directory,
    deliveries: new FakeDeliveries(),
    health,
    notices,
    queue: new FakeQueue(),
    payloads: { put: async () => {}, get: async () => undefined },
    sender: new FakeSender(() => {
      const statusCode = status();
      return statusCode < 300
        ? { kind: 'success', statusCode, durationMs: 2 }
        : { kind: 'http-error', statusCode, durationMs: 2, error: `HTTP ${statusCode}` };
    }),
    gate: new EndpointGate({ maxInFlight: 50, slowAfterMs: 1000, maxWaitMs: 50, attemptTimeoutMs: 15_000 }),
    secrets: secretBox,
    schedule: parseRetrySchedule('1,1,1,1,1,1,1,1,1'),
    userAgent: 'Switchboard/0.1.0',
    now: () => clock,
    random: () => 0,
  });
  let n = 0;
  const batch = (size: number) =>
    deliver.deliverBatch(
      Array.from({ length: size }, () => {
        const eventId = `evt_${++n}`;
        const job: DeliveryJob = {
          v: 1,
          projectId: 'prj_1',
          integrationId: 'int_1',
          deliveryId: deliveryIdFor(eventId, 'int_1'),
          eventId,
          eventType: 'message.sent',
          acceptedAt: clock,
          body: '{}',
          attemptsBefore: 0,
          manual: false,
          deferrals: 0,
        };
        return { messageId: eventId, receiptHandle: eventId, body: JSON.stringify(job), receiveCount: 1 };
      }),
    );
  return { publisher, directory, health, notices, batch, advance: (ms: number) => (clock += ms) };
}

describe('webhook.failing', () => {
  it('is published once per streak, when the streak reaches WEBHOOK_FAILING_AFTER, with its outbox mark cleared', async () => {
    const t = setup();
    await t.batch(2);
    expect(t.publisher.events).toHaveLength(0);
    await t.batch(2);
    await t.batch(5);
    const failing = t.publisher.events.filter((e) => e.type === 'webhook.failing');
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({
      channel: null,
      companyId: 1042,
      data: { integrationId: 'int_1', consecutiveFailures: 4, since: new Date(T0).toISOString() },
    });
    expect(checkEventData('webhook.failing', failing[0]!.data)).toEqual([]);
    expect(t.publisher.messages[0]).toMatchObject({ exceptIntegrationId: 'int_1', channelId: null });
    expect(t.health.marks).toEqual([]);
  });

  it('is published again for a new streak after a success', async () => {
    let ok = false;
    const t = setup({ answer: () => (ok ? 200 : 500) });
    await t.batch(3);
    ok = true;
    await t.batch(1);
    ok = false;
    await t.batch(2);
    expect(t.publisher.events.filter((e) => e.type === 'webhook.failing')).toHaveLength(1);
    await t.batch(1);
    expect(t.publisher.events.filter((e) => e.type === 'webhook.failing')).toHaveLength(2);
  });

  it('leaves its mark for the sweep when the events queue cannot be reached', async () => {
    const t = setup();
    t.publisher.failSends = 1;
    await t.batch(3);
    expect(t.publisher.events).toHaveLength(0);
    expect(t.health.marks).toHaveLength(1);
    await t.batch(3); // already noticed: nothing more
    expect(t.health.marks).toHaveLength(1);
  });
});

describe('a failing webhook already noticed', () => {
  it('writes its streak at most once a minute per worker, until a success ends it', async () => {
    let ok = false;
    const t = setup({ answer: () => (ok ? 200 : 500) });
    await t.batch(3); // noticed
    await t.batch(3); // the worker learns it is noticed
    const writes = t.health.writes;
    for (let i = 0; i < 20; i++) await t.batch(10);
    expect(t.health.writes).toBe(writes);
    t.advance(61_000);
    await t.batch(10);
    expect(t.health.writes).toBe(writes + 1);
    // A success is always written: it ends the streak.
    ok = true;
    await t.batch(1);
    expect(t.health.writes).toBe(writes + 2);
    expect(t.health.failingSince('int_1')).toBeUndefined();
    expect(t.publisher.events.filter((e) => e.type === 'webhook.failing')).toHaveLength(1);
  });
});

describe('webhook.disabled', () => {
  it('is published by the write that disables the webhook, once, with the reason', async () => {
    const t = setup({ answer: () => 410 });
    await t.batch(3);
    expect(t.directory.disabled).toEqual([{ integrationId: 'int_1', reason: 'gone' }]);
    const disabled = t.publisher.events.filter((e) => e.type === 'webhook.disabled');
    expect(disabled.map((e) => e.data)).toEqual([{ integrationId: 'int_1', reason: 'gone' }]);
    expect(checkEventData('webhook.disabled', disabled[0]!.data)).toEqual([]);
    expect(t.directory.marks).toEqual([]);
    // Disabling again changes nothing and publishes nothing.
    expect(await t.notices.disable('prj_1', 'int_1', 'failing')).toBe(false);
    expect(t.publisher.events.filter((e) => e.type === 'webhook.disabled')).toHaveLength(1);
  });

  it('after 5 days of failures, with reason failing', async () => {
    const t = setup({ failingAfter: 1_000 });
    await t.batch(1);
    t.advance(5 * 86400_000);
    await t.batch(1);
    expect(t.publisher.events.map((e) => [e.type, e.data.reason])).toEqual([['webhook.disabled', 'failing']]);
  });
});

describe('notice emails', () => {
  const envelope = {
    id: 'evt_9',
    type: 'webhook.disabled' as const,
    timestamp: new Date(T0).toISOString(),
    projectId: 'prj_1',
    companyId: 1042,
    channel: null,
    data: { integrationId: 'int_1', reason: 'gone' },
  };
  const message = {
    v: 1 as const,
    eventId: 'evt_9',
    eventType: 'webhook.disabled' as const,
    projectId: 'prj_1',
    channelId: null,
    acceptedAt: T0,
    body: JSON.stringify(envelope),
  };

  it('mails the contact, logs instead without a mailer, and does nothing for other events or without a contact', async () => {
    const sent: NoticeEmail[] = [];
    const logs: string[] = [];
    const projects = { get: async () => project };
    const mailer = { send: async (m: NoticeEmail) => void sent.push(m) };
    await makeNoticeEmails({ projects, mailer }).handle(message, async () => envelope);
    expect(sent).toEqual([
      {
        to: 'ops@acme.example',
        subject: '[Switchboard] Webhook int_1 was disabled',
        text: expect.stringContaining('answered 410 Gone'),
        messageId: '<evt_9@notices.switchboard>',
      },
    ]);
    await makeNoticeEmails({ projects, log: (_l, m) => void logs.push(m) }).handle(message, async () => envelope);
    expect(logs).toEqual(['webhook notice not mailed: NOTICE_SMTP_URL is not set']);
    await makeNoticeEmails({ projects, mailer }).handle(
      { ...message, eventType: 'message.sent' },
      async () => envelope,
    );
    const noContact = { get: async () => ({ ...project, contactEmail: undefined }) };
    await makeNoticeEmails({ projects: noContact, mailer }).handle(message, async () => envelope);
    expect(sent).toHaveLength(1);
  });

  it('a mail that cannot be sent fails the side effect (the fan-out receives the event again)', async () => {
    const failing = { send: async () => Promise.reject(new Error('421 try later')) };
    await expect(
      makeNoticeEmails({ projects: { get: async () => project }, mailer: failing }).handle(
        message,
        async () => envelope,
      ),
    ).rejects.toThrow('421');
  });
});
