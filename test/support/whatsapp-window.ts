import { eventually } from './eventually.ts';
import { metaEnvelope, sendMetaWebhook } from './meta-webhook.ts';
import type { ServiceClient } from './service.ts';

/** A WhatsApp channel as a test made it, with what a Meta webhook to it needs when it is a WhatsApp Cloud one. */
export interface WhatsAppTarget {
  projectId: string;
  channelId: string;
  token: string;
  /** WhatsApp Cloud: the channel's `appSecret` and `phoneNumberId` (absent: a sandbox channel). */
  cloud?: { appSecret: string; phoneNumberId: string };
}

/**
 * Opens the contact's 24-hour window the way it opens in production: the contact writes. On a sandbox
 * channel through the sandbox's simulated reply (applied before it answers); on a WhatsApp Cloud channel with a
 * signed Meta webhook, then waits until the conversation route says the window is open.
 */
export async function openWhatsAppWindow(svc: ServiceClient, target: WhatsAppTarget, number: string): Promise<void> {
  if (!target.cloud) {
    const reply = await svc.admin(
      'POST',
      `/projects/${target.projectId}/channels/${target.channelId}/sandbox/inbound`,
      { from: number, text: 'Oi' },
    );
    if (reply.status !== 202)
      throw new Error(`sandbox inbound answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return;
  }
  const message = {
    from: number,
    id: `wamid.window${Date.now()}${Math.random().toString(36).slice(2)}`,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: 'text',
    text: { body: 'Oi' },
  };
  const raw = Buffer.from(
    JSON.stringify(
      metaEnvelope(
        { messages: [message] },
        { phoneNumberId: target.cloud.phoneNumberId, accountId: '102290129340398' },
      ),
    ),
  );
  const res = await sendMetaWebhook(svc.baseUrl, target.channelId, target.cloud.appSecret, raw);
  if (res.status !== 200) throw new Error(`Meta webhook answered ${res.status}`);
  await eventually(
    async () => {
      const answer = await fetch(`${svc.baseUrl}/api/integration/conversations/${number}`, {
        headers: { authorization: `Bearer ${target.token}` },
      });
      return ((await answer.json()) as { window?: { open: boolean } }).window?.open === true;
    },
    10_000,
    `the window of ${number} to open`,
  );
}
