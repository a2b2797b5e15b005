import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consistently, eventually } from '#test/support/eventually.ts';
import { crashRun } from '#test/support/crash.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import { type ReceivedMail, startSmtpDouble } from './send-doubles.ts';
import { receiverPool, type TestReceiver } from './webhooks-support.ts';

/**
 * A project's webhook notices through the running service: `webhook.failing` after WEBHOOK_FAILING_AFTER failed attempts
 * in a row (3 here), once per streak, and `webhook.disabled`, to the project's other webhooks that take them and by
 * email to its `contactEmail` through a real SMTP server (NOTICE_SMTP_URL, with a login). A service of its own: it
 * needs those settings.
 */
let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;
const receivers = receiverPool();

const settings = () => ({
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_FAILING_AFTER: '3',
  // The double offers no STARTTLS: sending to it in clear is this test's explicit choice.
  NOTICE_SMTP_URL: `smtp://notices:s3cret@127.0.0.1:${smtp.port}?allowPlaintext=true`,
  NOTICE_EMAIL_RETRY_SCHEDULE: Array(20).fill('1').join(','),
  NOTICE_EMAIL_FROM: 'Switchboard <notices@example.com>',
});

beforeAll(async () => {
  smtp = await startSmtpDouble();
  svc = await startTestService({ threads: false, env: settings() });
});
afterAll(async () => {
  await receivers.closeAll();
  await svc?.stop();
  await smtp?.close();
});

const notices = (r: TestReceiver, type: string) => r.received.filter((d) => d.json.type === type);
const mailsTo = (to: string) => smtp.mails.filter((m: ReceivedMail) => m.rcptTo.includes(to));

async function setup(contactEmail?: string) {
  const created = await svc.admin('POST', '/projects', {
    companyId: 77,
    name: 'Notices',
    ...(contactEmail ? { contactEmail } : {}),
  });
  expect(created.status).toBe(201);
  const projectId = created.body.projectId as string;
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'sms',
    address: '+5511999990000',
  });
  const webhook = async (body: Record<string, unknown>) => {
    const res = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'webhook', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.integrationId as string;
  };
  const event = async (n: number) => {
    const res = await svc.admin('POST', `/projects/${projectId}/events`, {
      channelId: channel.body.channelId,
      type: 'message.sent',
      data: { n },
    });
    expect(res.status).toBe(202);
  };
  return { projectId, channelId: channel.body.channelId as string, created: created.body, webhook, event };
}

describe('webhook notices', () => {
  it('notices a failing webhook once per streak and its disabling, to the general webhook and by email', async () => {
    const contact = `ops+${Date.now()}@acme.example`;
    const p = await setup(contact);
    expect(p.created.contactEmail).toBe(contact);
    const general = await receivers.start();
    let answer: number = 500;
    const failing = await receivers.start(() => answer);
    const g = await p.webhook({ scope: 'general', url: general.url });
    const w = await p.webhook({ scope: 'channel', channelId: p.channelId, url: failing.url });

    // Two events: 8 failed attempts in a row; one notice for the streak.
    await p.event(1);
    await p.event(2);
    await eventually(async () => notices(general, 'webhook.failing').length === 1, 15_000, 'webhook.failing');
    await eventually(async () => failing.received.length === 8, 15_000, 'every attempt of both events');
    await consistently(() => expect(notices(general, 'webhook.failing')).toHaveLength(1), 1_000);
    const [notice] = notices(general, 'webhook.failing');
    expect(notice!.json).toMatchObject({
      type: 'webhook.failing',
      projectId: p.projectId,
      companyId: 77,
      channel: null,
      data: { integrationId: w, consecutiveFailures: expect.any(Number), since: expect.any(String) },
    });
    expect(notice!.json.data.consecutiveFailures).toBeGreaterThanOrEqual(3);
    expect(Date.parse(notice!.json.data.since)).toBeLessThanOrEqual(Date.parse(notice!.json.timestamp));
    await eventually(async () => mailsTo(contact).length === 1, 10_000, 'the failing email');
    const [mail] = mailsTo(contact);
    expect(mail!.auth).toEqual({ username: 'notices', password: 's3cret' });
    expect(mail!.mailFrom).toBe('notices@example.com');
    expect(mail!.headers.subject).toContain(`Webhook ${w} is failing`);
    expect(mail!.headers['message-id']).toBe(`<${notice!.json.id}@notices.switchboard>`);
    expect(mail!.raw).toContain('failed');

    // A success ends the streak; three more failures in a row are a new streak, noticed again.
    answer = 200;
    await p.event(3);
    await eventually(async () => failing.received.length === 9, 10_000, 'the successful attempt');
    answer = 500;
    await p.event(4);
    await eventually(async () => notices(general, 'webhook.failing').length === 2, 15_000, 'a second notice');

    // 410: disabled at once, noticed once, and nothing more goes to it.
    answer = 410;
    await p.event(5);
    await eventually(async () => notices(general, 'webhook.disabled').length === 1, 15_000, 'webhook.disabled');
    expect(notices(general, 'webhook.disabled')[0]!.json.data).toEqual({ integrationId: w, reason: 'gone' });
    const state = await svc.admin('GET', `/projects/${p.projectId}/integrations/${w}`);
    expect(state.body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await eventually(
      async () => mailsTo(contact).some((m) => m.headers.subject?.includes(`Webhook ${w} was disabled`)),
      10_000,
      'the disabled email',
    );
    // The failing webhook never received notices about itself; the general one got only these and the events.
    expect(failing.received.every((d) => d.json.type === 'message.sent')).toBe(true);
    expect(new Set(general.received.map((d) => d.json.type))).toEqual(
      new Set(['message.sent', 'webhook.failing', 'webhook.disabled']),
    );
    expect(g).not.toBe(w);
  });

  it('mails nobody once contactEmail is removed, and reaches only general webhooks that take the notice', async () => {
    const contact = `gone+${Date.now()}@acme.example`;
    const p = await setup(contact);
    const patched = await svc.admin('PATCH', `/projects/${p.projectId}`, { contactEmail: null });
    expect(patched.status).toBe(200);
    expect(patched.body.contactEmail).toBeNull();
    const bad = await svc.admin('PATCH', `/projects/${p.projectId}`, { contactEmail: 'not an address' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('contactEmail');

    const onlyMessages = await receivers.start();
    const onlyNotices = await receivers.start();
    const dead = await receivers.start(() => 500);
    await p.webhook({ scope: 'general', url: onlyMessages.url, eventTypes: ['message.sent'] });
    // Notices carry no channel: a channel webhook never gets them, even one that lists their types.
    await p.webhook({
      scope: 'channel',
      channelId: p.channelId,
      url: onlyNotices.url,
      eventTypes: ['webhook.failing', 'webhook.disabled'],
    });
    await p.webhook({ scope: 'channel', channelId: p.channelId, url: dead.url });
    await p.event(1);
    await eventually(async () => dead.received.length === 4, 15_000, 'every attempt to the dead receiver');
    await consistently(() => {
      expect(onlyMessages.received.map((d) => d.json.type)).toEqual(['message.sent']);
      expect(onlyNotices.received).toHaveLength(0);
      expect(mailsTo(contact)).toHaveLength(0);
    }, 1_500);
  });

  it('a mail server refusing the notice email holds neither the notice nor any other event of the project', async () => {
    const contact = `refused+${Date.now()}@acme.example`;
    const p = await setup(contact);
    const general = await receivers.start();
    const failing = await receivers.start(() => 500);
    const g = await p.webhook({ scope: 'general', url: general.url });
    await p.webhook({ scope: 'channel', channelId: p.channelId, url: failing.url });
    smtp.setRefuse(true);
    try {
      await p.event(1);
      // The notice reaches the general webhook although its email is refused (as SES's sandbox refuses an
      // unverified recipient), and the email is tried again on its own.
      await eventually(async () => notices(general, 'webhook.failing').length === 1, 20_000, 'webhook.failing');
      await eventually(async () => smtp.refused.filter((r) => r === contact).length >= 2, 20_000, 'refused twice');
      // An event of the same project sent meanwhile (a test, which shares the notices' order key) is not held.
      const sentAt = Date.now();
      expect((await svc.admin('POST', `/projects/${p.projectId}/integrations/${g}/test`)).status).toBe(202);
      await eventually(async () => notices(general, 'webhook.test').length === 1, 20_000, 'the test event');
      const latencyMs = Date.now() - sentAt;
      expect(latencyMs).toBeLessThan(20_000);
      expect(mailsTo(contact)).toHaveLength(0);
    } finally {
      smtp.setRefuse(false);
    }
    // The mail server takes it again: the email arrives on its next attempt, once.
    await eventually(async () => mailsTo(contact).length === 1, 20_000, 'the failing email, once accepted');
    await consistently(() => expect(mailsTo(contact)).toHaveLength(1), 2_000);
    expect(notices(general, 'webhook.failing')).toHaveLength(1);
  });

  it('killed right after queuing the notice email: the email is sent once and the notice still delivered', async () => {
    const run = crashRun({ threads: false });
    try {
      const first = await run.start('after-notice-email-queued', settings());
      const api = first.client;
      const contact = `crash+${Date.now()}@acme.example`;
      const { projectId } = await api.newProject();
      expect((await api.admin('PATCH', `/projects/${projectId}`, { contactEmail: contact })).status).toBe(200);
      const channel = await api.admin('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'sms',
        address: '+5511999990000',
      });
      const general = await receivers.start();
      const failing = await receivers.start(() => 500);
      for (const hook of [
        { scope: 'general', url: general.url },
        { scope: 'channel', channelId: channel.body.channelId, url: failing.url },
      ])
        expect(
          (await api.admin('POST', `/projects/${projectId}/integrations`, { product: 'webhook', ...hook })).status,
        ).toBe(201);
      await api.admin('POST', `/projects/${projectId}/events`, {
        channelId: channel.body.channelId,
        type: 'message.sent',
        data: { n: 1 },
      });
      // The fan-out of the notice dies with the email queued and the deliveries not: the event comes back.
      await first.died(60_000);
      await run.start(undefined, settings());
      await eventually(async () => mailsTo(contact).length === 1, 60_000, 'the email queued before the crash');
      // The event's retry (after the queue's 60 s visibility timeout) delivers the notice and queues the email again.
      await eventually(async () => notices(general, 'webhook.failing').length >= 1, 100_000, 'webhook.failing');
      await consistently(() => expect(mailsTo(contact)).toHaveLength(1), 4_000);
    } finally {
      await run.cleanUp();
    }
  }, 240_000);
});
