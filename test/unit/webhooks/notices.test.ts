import { describe, expect, it } from 'vitest';
import { checkEventData } from '#shared/events/index.ts';
import { makeDeliver } from '#shared/webhooks/deliver.ts';
import { EndpointGate } from '#shared/webhooks/endpoint-gate.ts';
import { deliveryIdFor, type DeliveryJob } from '#shared/webhooks/model.ts';
import {
  isNoticeEmailJob,
  makeNoticeEmails,
  type NoticeEmail,
  type NoticeEmailJob,
} from '#shared/webhooks/notice-emails.ts';
import { DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS, makeNoticeEmailSender } from '#shared/webhooks/send-notice-email.ts';
import { makeWebhookNotices } from '#shared/webhooks/notices.ts';
import { parseRetrySchedule } from '#shared/webhooks/retry-schedule.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import { FakeDeliveries, FakeDirectory, FakeHealth, FakeQueue, FakeSender, webhook } from './fakes.ts';
import { secretBox } from './fakes.ts';
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

  const email: NoticeEmail = {
    to: 'ops@acme.example',
    subject: '[Switchboard] Webhook int_1 was disabled',
    text: expect.stringContaining('answered 410 Gone') as unknown as string,
    messageId: '<evt_9@notices.switchboard>',
  };

  it('queues the email as a job of its own, and nothing for other events or without a contact', async () => {
    const queued: NoticeEmailJob[] = [];
    const queue = { send: async (job: NoticeEmailJob) => void queued.push(job) };
    const projects = { get: async () => project };
    await makeNoticeEmails({ projects, queue }).handle(message, async () => envelope);
    expect(queued).toEqual([{ v: 1, kind: 'notice-email', projectId: 'prj_1', eventId: 'evt_9', email }]);
    expect(isNoticeEmailJob(JSON.parse(JSON.stringify(queued[0])))).toBe(true);
    await makeNoticeEmails({ projects, queue }).handle({ ...message, eventType: 'message.sent' }, async () => envelope);
    const noContact = { get: async () => ({ ...project, contactEmail: undefined }) };
    await makeNoticeEmails({ projects: noContact, queue }).handle(message, async () => envelope);
    expect(queued).toHaveLength(1);
  });

  it('only a job that cannot be queued fails the side effect (the fan-out receives the event again)', async () => {
    const queue = { send: async () => Promise.reject(new Error('SQS unavailable')) };
    await expect(
      makeNoticeEmails({ projects: { get: async () => project }, queue }).handle(message, async () => envelope),
    ).rejects.toThrow('SQS unavailable');
  });
});

describe('notice email jobs (the deliver worker)', () => {
  const job: NoticeEmailJob = {
    v: 1,
    kind: 'notice-email',
    projectId: 'prj_1',
    eventId: 'evt_9',
    email: { to: 'ops@acme.example', subject: 'Webhook int_1 was disabled', text: 'gone', messageId: '<evt_9@n>' },
  };
  const received = (receiveCount: number, id = 'm1') => ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    receiveCount,
    job,
  });

  function sender(options: { refuse?: () => boolean; mailer?: false; schedule?: string } = {}) {
    const mails: NoticeEmail[] = [];
    const postponed: { receiptHandle: string; seconds: number }[] = [];
    const sentLog = new Map<string, number>();
    const claims = new Map<string, string>();
    const logs: [string, string][] = [];
    const use = makeNoticeEmailSender({
      ...(options.mailer === false
        ? {}
        : {
            mailer: {
              send: async (m: NoticeEmail) => {
                if (options.refuse?.()) throw new Error('554 Message rejected: Email address is not verified');
                mails.push(m);
              },
            },
          }),
      sent: {
        claim: async (p, e, holder) => {
          const key = `${p}/${e}`;
          if (sentLog.has(key)) return 'sent';
          const holding = claims.get(key);
          if (holding !== undefined && holding !== holder) return 'another';
          claims.set(key, holder);
          return 'mine';
        },
        markSent: async (p, e, _holder, at) => void sentLog.set(`${p}/${e}`, at),
        release: async (p, e, holder) => {
          if (claims.get(`${p}/${e}`) === holder) claims.delete(`${p}/${e}`);
        },
      },
      queue: {
        postpone: async (items) => {
          postponed.push(...items);
          return new Set<number>();
        },
      },
      schedule: parseRetrySchedule(options.schedule, DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS),
      random: () => 0,
      now: () => T0,
      log: (level, m) => void logs.push([level, m]),
    });
    return { use, mails, postponed, sentLog, logs };
  }

  it('sends the email once: a repeated job (the fan-out run again, a duplicate message) sends nothing', async () => {
    const t = sender();
    expect(await t.use.sendBatch([received(1)])).toEqual([]);
    expect(await t.use.sendBatch([received(1, 'm2')])).toEqual([]);
    expect(t.mails).toEqual([job.email]);
    expect(t.sentLog.get('prj_1/evt_9')).toBe(T0);
    // Two copies in one batch: one sends, the other finds it held.
    const u = sender();
    expect(await u.use.sendBatch([received(1, 'a'), received(1, 'b')])).toEqual([]);
    expect(u.mails).toHaveLength(1);
  });

  it('a refused email waits in the queue for its next attempt, on its own schedule, and is given up after the last', async () => {
    const t = sender({ refuse: () => true });
    expect(await t.use.sendBatch([received(1)])).toEqual(['m1']);
    expect(await t.use.sendBatch([received(2)])).toEqual(['m1']);
    expect(t.postponed).toEqual([
      { receiptHandle: 'rh-m1', seconds: DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS[0] },
      { receiptHandle: 'rh-m1', seconds: DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS[1] },
    ]);
    const last = DEFAULT_NOTICE_EMAIL_DELAYS_SECONDS.length + 1;
    expect(await t.use.sendBatch([received(last)])).toEqual([]);
    expect(t.postponed).toHaveLength(2);
    expect(t.logs.at(-1)).toEqual(['error', 'webhook notice email not sent after its last attempt; given up']);
    expect(t.mails).toEqual([]);
  });

  it('a mail server back in service gets the email on the next attempt; each email of a batch goes its own way', async () => {
    let refusing = true;
    const t = sender({ refuse: () => refusing, schedule: '2,2' });
    expect(await t.use.sendBatch([received(1)])).toEqual(['m1']);
    refusing = false;
    const other = { ...received(1, 'm2'), job: { ...job, eventId: 'evt_10' } };
    expect(await t.use.sendBatch([received(2), other])).toEqual([]);
    expect(t.mails.map((m) => m.messageId)).toEqual(['<evt_9@n>', '<evt_9@n>']);
    expect([...t.sentLog.keys()]).toEqual(['prj_1/evt_9', 'prj_1/evt_10']);
  });

  it('logs instead of mailing when no mail server is set', async () => {
    const t = sender({ mailer: false });
    expect(await t.use.sendBatch([received(1)])).toEqual([]);
    expect(t.logs).toEqual([['warn', 'webhook notice not mailed: NOTICE_SMTP_URL is not set']]);
  });
});
