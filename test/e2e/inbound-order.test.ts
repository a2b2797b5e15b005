import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { metaSignature, metaWebhookBody } from '#test/support/meta-webhook.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { postTwilioCallback } from '#test/support/twilio-callback.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Inbound order through the running service: one contact's messages, each posted once the previous one was
 * acknowledged, reach a webhook with `ordering: "conversation"` in that order (first arrival of each event), for
 * Twilio's and Meta's signed callbacks alike; a Meta callback that carries two contacts' messages keeps each
 * contact's order.
 */
let svc: ServiceClient;
let receiver: TestReceiver;
let projectId: string;
const AUTH_TOKEN = 'order-auth-token';
const APP_SECRET = 'order-app-secret';
const PHONE_NUMBER_ID = '106540352242999';
const channels: Record<string, string> = {};

beforeAll(async () => {
  [svc, receiver] = await Promise.all([sharedService(), startReceiver()]);
  ({ projectId } = await svc.newProject());
  const hook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
    ordering: 'conversation',
    eventTypes: ['message.received'],
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const create = async (name: string, body: Record<string, unknown>) => {
    const res = await svc.admin('POST', `/projects/${projectId}/channels`, { name, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    channels[name] = res.body.channelId as string;
  };
  await create('twilio', {
    type: 'sms',
    address: '+15005550016',
    provider: { kind: 'twilio', accountSid: 'ACorder', authToken: AUTH_TOKEN },
  });
  await create('whatsapp', {
    type: 'whatsapp',
    address: '+15551234599',
    provider: { kind: 'whatsapp-cloud', phoneNumberId: PHONE_NUMBER_ID, accessToken: 'at', appSecret: APP_SECRET },
  });
});
afterAll(async () => {
  await Promise.all([svc?.close(), receiver?.close()]);
});

async function postTwilio(sid: string, from: string, body: string): Promise<number> {
  const url = `${svc.baseUrl}/inbound/twilio/${channels.twilio}`;
  const params = { AccountSid: 'ACorder', MessageSid: sid, From: from, To: '+15005550016', Body: body, NumMedia: '0' };
  const res = await postTwilioCallback(url, AUTH_TOKEN, params);
  await res.arrayBuffer();
  return res.status;
}

/** Meta's webhook with these messages (`[from, wamid]`), in this order, in one callback. */
async function postMeta(messages: [string, string][]): Promise<number> {
  const raw = metaWebhookBody({
    phoneNumberId: PHONE_NUMBER_ID,
    displayNumber: '15551234599',
    messages: messages.map(([from, id]) => ({ from, id })),
  });
  const res = await fetch(`${svc.baseUrl}/inbound/whatsapp/${channels.whatsapp}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(APP_SECRET, raw) },
    body: raw,
  });
  await res.arrayBuffer();
  return res.status;
}

/** The provider ids of a channel's `message.received` from one contact, by first arrival at the webhook. */
function arrivals(channelId: string, from: string): string[] {
  const seen = new Set<string>();
  for (const d of [...receiver.received].sort((a, b) => a.arrivedAt - b.arrivedAt)) {
    const event = d.json;
    if (event?.type !== 'message.received' || event.channel.id !== channelId || event.data.from !== from) continue;
    seen.add(event.data.providerMessageId);
  }
  return [...seen];
}

async function arrivedAll(channelId: string, from: string, count: number): Promise<string[]> {
  return eventually(
    async () => {
      const got = arrivals(channelId, from);
      return got.length >= count ? got : undefined;
    },
    60_000,
    `${count} messages from ${from}`,
  );
}

const COUNT = 60;

describe('inbound order on an ordered webhook', { timeout: 120_000 }, () => {
  it("Twilio: one contact's messages arrive in the order they were acknowledged", async () => {
    const sent: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const sid = `SMorder${String(i).padStart(4, '0')}`;
      expect(await postTwilio(sid, '+5511988880001', `message ${i}`)).toBe(200);
      sent.push(sid);
    }
    expect(await arrivedAll(channels.twilio!, '+5511988880001', COUNT)).toEqual(sent);
  });

  it("WhatsApp: one contact's messages arrive in the order they were acknowledged, also when a callback carries two contacts", async () => {
    const ana: string[] = [];
    const bia: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const a = `wamid.orderA${String(i).padStart(4, '0')}`;
      ana.push(a);
      if (i % 3 === 0) {
        // Meta may batch: this callback carries a message of each contact.
        const b = `wamid.orderB${String(i).padStart(4, '0')}`;
        bia.push(b);
        expect(
          await postMeta([
            ['5511988880002', a],
            ['5511988880003', b],
          ]),
        ).toBe(200);
      } else expect(await postMeta([['5511988880002', a]])).toBe(200);
    }
    expect(await arrivedAll(channels.whatsapp!, '5511988880002', ana.length)).toEqual(ana);
    expect(await arrivedAll(channels.whatsapp!, '5511988880003', bia.length)).toEqual(bia);
  });
});
