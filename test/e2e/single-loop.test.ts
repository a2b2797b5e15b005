import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '#test/support/service.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

// LOCAL_THREADS=0 puts the gateway with the HTTP functions, the queue workers and fauxqs on the main thread with
// dynalite: one event loop. The `model`, `bulk` and `strict` groups' services, the crash-point files and a few other
// files with services of their own run this mode (cheaper in CPU); the `e2e` and `bundles` groups, the files that
// restart or count their service and the crash ledger run the default (four threads), as `npm start` does. This file holds the mode's own promise on a service of its own: the whole path, a
// signed webhook included.
let svc: TestService;
let receiver: TestReceiver;

beforeAll(async () => {
  [svc, receiver] = await Promise.all([startTestService({ threads: false }), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close()]);
});

describe('the local runner on one event loop', () => {
  it('answers /healthz, sends through the sandbox and delivers the signed message.sent event', async () => {
    expect((await fetch(`${svc.baseUrl}/healthz`)).status).toBe(200);
    const project = await svc.admin('POST', '/projects', { companyId: 77, name: 'single loop' });
    const channel = await svc.admin('POST', `/projects/${project.body.projectId}/channels`, {
      type: 'sms',
      name: 'sms',
      address: '+5511999990000',
    });
    const webhook = await svc.admin('POST', `/projects/${project.body.projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
    });
    const custom = await svc.admin('POST', `/projects/${project.body.projectId}/integrations`, {
      product: 'custom',
      channelId: channel.body.channelId,
    });
    expect([channel.status, webhook.status, custom.status]).toEqual([201, 201, 201]);

    const sent = await svc.send(custom.body.token, { to: '+5511988887777', body: 'Olá from one loop' });
    expect(sent.status).toBe(200);
    const { messageId } = (await sent.json()) as { messageId: string };

    const [delivery] = await receiver.waitFor(1, 15_000);
    const verified = new Webhook(webhook.body.signingSecret).verify(
      delivery!.body,
      delivery!.headers as Record<string, string>,
    ) as { type: string; data: { messageId: string } };
    expect(verified.type).toBe('message.sent');
    expect(verified.data.messageId).toBe(messageId);
  });
});
