import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashRun, type CrashRun } from '#test/support/crash.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import type { ServiceClient } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Messaging's crash points (docs/durability.md), each killed with SIGKILL by its named failpoint and restarted on the
 * same data: every change's event reaches the webhook, under one id, whatever instant the process died at.
 */
let receiver: TestReceiver;
// One run (one DATA_DIR) for the file: the service restarted after a crash point is armed for the next one
// (`run.armed`), so each crash point costs one start instead of two. Every test makes its own project.
let run: CrashRun;
beforeAll(async () => {
  receiver = await startReceiver();
  run = crashRun({ threads: false });
});
afterAll(async () => {
  await run?.cleanUp();
  await receiver?.close();
});

async function projectWithWebhook(svc: ServiceClient) {
  const { projectId } = await svc.newProject();
  const hook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
  });
  expect(hook.status).toBe(201);
  return projectId;
}

/** An SMS channel (sandbox) of the project and a custom token bound to it. */
async function smsChannelWithToken(svc: ServiceClient, projectId: string) {
  const channel = (
    await svc.admin('POST', `/projects/${projectId}/channels`, { type: 'sms', name: 's', address: '+5511999990000' })
  ).body;
  const token = (
    await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'custom', channelId: channel.channelId })
  ).body.token as string;
  return { channel, token };
}

/** The deliveries of one event type for one message, by event id. */
const idsOf = (type: string, messageId: string) => [
  ...new Set(
    receiver.received.filter((d) => d.json.type === type && d.json.data.messageId === messageId).map((d) => d.json.id),
  ),
];

describe('crash points of messaging', { timeout: 90_000 }, () => {
  it('after-status-write (sandbox receipt, a synchronous route): the event sweep publishes it, one id', async () => {
    const first = await run.armed('after-status-write');
    const projectId = await projectWithWebhook(first.client);
    const { channel, token } = await smsChannelWithToken(first.client, projectId);
    const sent = (await (await first.client.send(token, { to: '+5511988887777', body: 'hi' })).json()) as {
      messageId: string;
    };
    // The receipt is written with its mark, then the process dies before publishing: no answer reaches the caller.
    await expect(
      first.client.admin('POST', `/projects/${projectId}/channels/${channel.channelId}/sandbox/status`, {
        messageId: sent.messageId,
        status: 'delivered',
      }),
    ).rejects.toThrow();
    await first.died();

    const second = await run.start();
    await eventually(async () => idsOf('message.delivered', sent.messageId).length > 0, 20_000, 'message.delivered');
    await consistently(() => expect(idsOf('message.delivered', sent.messageId)).toHaveLength(1), 1_500);
    const status = await fetch(`${second.process.baseUrl}/api/integration/messages/${sent.messageId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await status.json()) as { status: string }).status).toBe('delivered');
  });

  it('after-inbound-write (a signed Twilio message, answered 200): the queue gives it again, the same id is published', async () => {
    const first = await run.armed('after-inbound-write');
    const projectId = await projectWithWebhook(first.client);
    const channel = (
      await first.client.admin('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'Twilio',
        address: '+15005550006',
        provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok' },
      })
    ).body;
    const url = `${first.process.baseUrl}/inbound/twilio/${channel.channelId}`;
    const params = {
      AccountSid: 'AC1',
      MessageSid: 'SMcrash1',
      From: '+5511988887777',
      To: '+15005550006',
      Body: 'Oi',
      NumMedia: '0',
    };
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature('tok', url, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    expect(answer.status).toBe(200); // accepted: from here nothing may be lost
    await first.died();

    await run.start();
    const received = () =>
      receiver.received.filter(
        (d) => d.json.type === 'message.received' && d.json.data.providerMessageId === 'SMcrash1',
      );
    await eventually(async () => received().length > 0, 20_000, 'message.received');
    await consistently(() => expect(new Set(received().map((d) => d.json.id)).size).toBe(1), 1_500);
    expect(received()[0]!.json.data.text).toBe('Oi');
  });

  it('after-publish (queued, mark not yet cleared): published again with the same id; the receiver may see it twice, never two ids', async () => {
    const first = await run.armed('after-publish');
    const projectId = await projectWithWebhook(first.client);
    const channel = (
      await first.client.admin('POST', `/projects/${projectId}/channels`, {
        type: 'whatsapp',
        name: 'w',
        address: '5511999990000',
      })
    ).body;
    await expect(
      first.client.admin('POST', `/projects/${projectId}/channels/${channel.channelId}/sandbox/inbound`, {
        from: '5511988887777',
        text: 'crash after publish',
      }),
    ).rejects.toThrow();
    await first.died();

    await run.start();
    const got = () =>
      receiver.received.filter((d) => d.json.type === 'message.received' && d.json.data.text === 'crash after publish');
    await eventually(async () => got().length > 0, 20_000, 'message.received');
    await consistently(() => expect(new Set(got().map((d) => d.headers['webhook-id'])).size).toBe(1), 1_500);
  });

  it('after-send-record (the send recorded, its event not yet queued): the sweep publishes message.sent, one id', async () => {
    const first = await run.armed('after-send-record');
    const projectId = await projectWithWebhook(first.client);
    const { channel, token } = await smsChannelWithToken(first.client, projectId);
    await expect(first.client.send(token, { to: '+5511988887777', body: 'crash after record' })).rejects.toThrow();
    await first.died();

    const second = await run.start();
    const sent = () =>
      receiver.received.filter(
        (d) => d.json.type === 'message.sent' && d.json.data.payload?.body === 'crash after record',
      );
    await eventually(async () => sent().length > 0, 20_000, 'message.sent');
    await consistently(() => expect(new Set(sent().map((d) => d.json.id)).size).toBe(1), 1_500);
    // The record is there too: the outbox lists it.
    const outbox = await second.client.admin('GET', `/projects/${projectId}/channels/${channel.channelId}/outbox`);
    expect(outbox.body.items.map((i: { messageId: string }) => i.messageId)).toContain(sent()[0]!.json.data.messageId);
  });
});
