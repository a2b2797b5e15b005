import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { metaEnvelope, sendMetaWebhook } from '#test/support/meta-webhook.ts';
import type { ServiceClient } from '#test/support/service.ts';
import { type TestReceiver, webhookHeaders } from './webhooks-support.ts';

export { dsnMail } from '#test/support/dsn-mail.ts';

/**
 * A project of its own with a general webhook to `receiver`: its events (signatures verified) in arrival order, a
 * wait for them, and channels made with a custom token each. Shared by the conversation and mail e2e files.
 */
export async function projectWithWebhook(svc: ServiceClient, receiver: TestReceiver) {
  const { projectId } = await svc.newProject();
  const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
  });
  const wh = new Webhook(webhook.body.signingSecret);
  const events = (filter: (e: any) => boolean = () => true) =>
    receiver.received
      .filter((d) => d.json?.projectId === projectId)
      .map((d) => {
        wh.verify(d.body, webhookHeaders(d));
        return d.json;
      })
      .filter(filter);
  const waitFor = (filter: (e: any) => boolean, count = 1, what = 'events', timeoutMs = 15_000) =>
    eventually(
      async () => {
        const found = events(filter);
        return found.length >= count ? found : undefined;
      },
      timeoutMs,
      what,
    );
  async function channel(body: Record<string, unknown>) {
    const created = await svc.admin('POST', `/projects/${projectId}/channels`, { name: 'Channel', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = (
      await svc.admin('POST', `/projects/${projectId}/integrations`, {
        product: 'custom',
        channelId: created.body.channelId,
      })
    ).body.token as string;
    return { ...created.body, token } as Record<string, any> & { channelId: string; token: string };
  }
  return { projectId, events, waitFor, channel };
}

/**
 * Posts a WhatsApp Cloud webhook as Meta does (`X-Hub-Signature-256` over the raw body with the app secret): one
 * change of `field: "messages"` with `value` (messages, statuses, contacts) for `phoneNumberId`. Expects 200.
 */
export async function postMetaWebhook(
  baseUrl: string,
  channel: { channelId: string; phoneNumberId: string; appSecret: string },
  value: Record<string, unknown>,
): Promise<void> {
  const number = { phoneNumberId: channel.phoneNumberId, displayNumber: '15551230000', accountId: '102290129340398' };
  const raw = Buffer.from(JSON.stringify(metaEnvelope(value, number)));
  const res = await sendMetaWebhook(baseUrl, channel.channelId, channel.appSecret, raw);
  expect(res.status).toBe(200);
}
