import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrashableService, crashRun, type CrashRun } from '#test/support/crash.ts';
import { eventually } from '#test/support/eventually.ts';
import { metaSignature, metaWebhookBody } from '#test/support/meta-webhook.ts';
import { startReceiver, type TestReceiver } from './webhooks-support.ts';

/**
 * Inbound order through a crash: a failpoint kills the service (SIGKILL) while it works one contact's messages, which
 * keep coming as a provider sends them (each once the previous one was acknowledged, resent until it is). After the
 * restart, the ordered webhook still receives them in the order they were acknowledged, each once.
 */
let receiver: TestReceiver;
let run: CrashRun;
beforeAll(async () => {
  receiver = await startReceiver();
  run = crashRun({ threads: false });
});
afterAll(async () => {
  await run?.cleanUp();
  await receiver?.close();
});

const COUNT = 12;

/** A project whose ordered webhook takes the received messages, and a channel of `provider`. */
async function setUp(svc: CrashableService, provider: Record<string, unknown>, type: 'sms' | 'whatsapp') {
  const { projectId } = await svc.client.newProject();
  const hook = await svc.client.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    url: receiver.url,
    ordering: 'conversation',
    eventTypes: ['message.received'],
  });
  expect(hook.status).toBe(201);
  const channel = await svc.client.admin('POST', `/projects/${projectId}/channels`, {
    type,
    name: 'crash order',
    address: type === 'sms' ? '+15005550026' : '15551230026',
    provider,
  });
  expect(channel.status, JSON.stringify(channel.body)).toBe(201);
  return channel.body.channelId as string;
}

/**
 * Posts `COUNT` messages one after another, each until acknowledged: when the service died under a request, it is
 * started again on the same data and the request sent again, as a provider retries. Returns the ids in order.
 */
async function sendAll(
  first: CrashableService,
  post: (baseUrl: string, n: number) => Promise<{ id: string; status: number }>,
): Promise<string[]> {
  let svc = first;
  let restarted = false;
  const acknowledged: string[] = [];
  for (let n = 0; n < COUNT; n++) {
    for (;;) {
      const answer = await post(svc.process.baseUrl, n).catch(() => undefined);
      if (answer?.status === 200) {
        acknowledged.push(answer.id);
        break;
      }
      if (!svc.alive()) {
        await svc.died();
        svc = await run.start();
        restarted = true;
      } else if (answer === undefined) await new Promise((r) => setTimeout(r, 100)); // as a provider backs off
    }
  }
  // The failpoint fired while these were worked (else the test proves nothing about a crash).
  if (!restarted) await svc.died(30_000).then(async () => void (await run.start()));
  return acknowledged;
}

/** The ids of a channel's `message.received`, by first arrival at the webhook. */
async function arrivals(channelId: string): Promise<string[]> {
  return eventually(
    async () => {
      const seen = new Set<string>();
      for (const d of [...receiver.received].sort((a, b) => a.arrivedAt - b.arrivedAt))
        if (d.json?.type === 'message.received' && d.json.channel.id === channelId)
          seen.add(d.json.data.providerMessageId);
      return seen.size >= COUNT ? [...seen] : undefined;
    },
    60_000,
    `${COUNT} messages`,
  );
}

describe('inbound order through a crash', { timeout: 150_000 }, () => {
  it('Twilio, killed between a message’s record and its event: the next ones do not overtake it', async () => {
    const svc = await run.armed('after-inbound-write:4');
    const channelId = await setUp(svc, { kind: 'twilio', accountSid: 'ACcrash', authToken: 'tok' }, 'sms');
    const sent = await sendAll(svc, async (baseUrl, n) => {
      const url = `${baseUrl}/inbound/twilio/${channelId}`;
      const id = `SMcrashorder${n}`;
      const params = {
        AccountSid: 'ACcrash',
        MessageSid: id,
        From: '+5511977770001',
        To: '+15005550026',
        Body: `${n}`,
      };
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature('tok', url, params),
        },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return { id, status: res.status };
    });
    expect(await arrivals(channelId)).toEqual(sent);
  });

  it('WhatsApp, killed between a message’s event and its mark being cleared: order and one id each', async () => {
    const svc = await run.armed('after-publish:5');
    const channelId = await setUp(
      svc,
      { kind: 'whatsapp-cloud', phoneNumberId: 'PNcrash', accessToken: 'at', appSecret: 'crash-secret' },
      'whatsapp',
    );
    const sent = await sendAll(svc, async (baseUrl, n) => {
      const id = `wamid.crashorder${n}`;
      const raw = metaWebhookBody({
        phoneNumberId: 'PNcrash',
        displayNumber: '15551230026',
        messages: [{ from: '5511977770002', id }],
      });
      const res = await fetch(`${baseUrl}/inbound/whatsapp/${channelId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': metaSignature('crash-secret', raw),
        },
        body: raw,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return { id, status: res.status };
    });
    expect(await arrivals(channelId)).toEqual(sent);
    const ids = receiver.received.filter((d) => d.json?.channel?.id === channelId).map((d) => d.json.id);
    expect(new Set(ids).size).toBe(COUNT);
  });
});
