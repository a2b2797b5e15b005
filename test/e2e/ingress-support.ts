import { Webhook } from 'standardwebhooks';
import twilio from 'twilio';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { metaEnvelope, sendMetaWebhook } from '#test/support/meta-webhook.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startHttpDouble, twilioQueued } from './send-doubles.ts';
import { startReceiver, type TestReceiver, webhookHeaders } from './webhooks-support.ts';

/**
 * The project, channels, doubles and helpers of the ingress tests (ingress*.test.ts), each file calling
 * {@link useIngressChannels} once. Channel ingress as providers and customers see it: Twilio requests signed with
 * Twilio's own library, WhatsApp payloads as Meta documents them, mail over SMTP with nodemailer; what arrives is read
 * from a real webhook receiver and verified with the Standard Webhooks library.
 */
export let svc: ServiceClient;
export let receiver: TestReceiver;
export let twilioApi: Awaited<ReturnType<typeof startHttpDouble>>;
export let metaApi: Awaited<ReturnType<typeof startHttpDouble>>;
export let projectId: string;
export let signingSecret: string;
export const channels: Record<string, any> = {};
export const tokens: Record<string, string> = {};
export const AUTH_TOKEN = 'twilio-auth-token-of-the-channel';
export const APP_SECRET = 'meta-app-secret-of-the-channel';
export const PHONE_NUMBER_ID = '106540352242922';

/** Events the customer's receiver got for this project, verified, in arrival order. */
export function events(filter: (e: any) => boolean = () => true): any[] {
  const wh = new Webhook(signingSecret);
  return receiver.received
    .filter((d) => d.json?.projectId === projectId)
    .map((d) => {
      wh.verify(d.body, webhookHeaders(d));
      return d.json;
    })
    .filter(filter);
}

/**
 * Waits for `count` events matching `filter`, up to 45 s: on a loaded two-core machine a report goes through four
 * queue hops (inbound, ordered lane, events, deliveries). A timeout says what did arrive, so a failure in CI can be
 * read without the service's (silent) log.
 */
export async function waitForEvents(filter: (e: any) => boolean, count: number): Promise<any[]> {
  try {
    return await eventually(
      async () => {
        const found = events(filter);
        return found.length >= count ? found : undefined;
      },
      // A report that fails on its way is tried again after 5 s, then 10 s and 20 s (the ordered lane): a loaded
      // machine's transient failures must not read as a lost report.
      45_000,
      `${count} events`,
    );
  } catch (error) {
    const seen = events().map((e) => `${e.type} ${e.data?.messageId ?? ''} ${e.data?.status ?? ''}`.trim());
    throw new Error(
      `${(error as Error).message}; matching: ${events(filter).length}; this project's: [${seen.join(', ')}]`,
    );
  }
}

/** Posts a Twilio webhook as Twilio does: form-encoded, signed over the public URL and the sorted parameters. */
export async function postTwilio(
  channelId: string,
  params: Record<string, string>,
  authToken = AUTH_TOKEN,
  tamper = false,
) {
  const url = `${svc.baseUrl}/inbound/twilio/${channelId}`;
  const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
  expect(twilio.validateRequest(authToken, signature, url, params)).toBe(true);
  const body = new URLSearchParams(params);
  if (tamper) body.set('Body', `${params.Body ?? ''}!`);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: body.toString(),
  });
}

export function twilioStatus(sid: string, status: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AccountSid: 'AC0123456789abcdef',
    ApiVersion: '2010-04-01',
    From: '+15005550006',
    MessageSid: sid,
    MessageStatus: status,
    SmsSid: sid,
    SmsStatus: status,
    To: '+5511988887777',
    ...extra,
  };
}

export async function postMeta(channelId: string, payload: unknown, secret = APP_SECRET) {
  const raw = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return sendMetaWebhook(svc.baseUrl, channelId, secret, raw);
}

export function metaWebhook(value: Record<string, unknown>) {
  return metaEnvelope(value, {
    phoneNumberId: PHONE_NUMBER_ID,
    displayNumber: '15551234567',
    accountId: '102290129340398',
  });
}

/**
 * Registers the file's hooks: the service, the doubles and the receiver for its tests, closed after them. The files
 * share their group's service, and mail to an address reaches every channel at it, whatever its project
 * (docs/email.md): a file that sends mail gives its mailbox an address of its own, or the other files' projects
 * receive its mail too.
 */
export function useIngressChannels(mailbox = 'support@inbound.example.com'): void {
  // A test's own timeout must outlast waitForEvents', or a slow report fails without saying what did arrive.
  vi.setConfig({ testTimeout: 75_000 });
  beforeAll(async () => {
    [svc, receiver, twilioApi, metaApi] = await Promise.all([
      sharedService(),
      startReceiver(),
      startHttpDouble({
        reply: (_req, i) => twilioQueued(i),
      }),
      startHttpDouble({
        reply: (_req, i) => ({
          status: 200,
          body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.HBgLMTU1NTEyMzQ1Njc${i}` }] },
        }),
      }),
    ]);
    ({ projectId } = await svc.newProject({ companyId: 7001 }));
    const webhook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
    });
    signingSecret = webhook.body.signingSecret;
    const create = async (name: string, body: Record<string, unknown>) => {
      const created = await svc.admin('POST', `/projects/${projectId}/channels`, { name, ...body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      channels[name] = created.body;
      tokens[name] = (
        await svc.admin('POST', `/projects/${projectId}/integrations`, {
          product: 'custom',
          channelId: created.body.channelId,
        })
      ).body.token;
    };
    await create('twilio', {
      type: 'sms',
      address: '+15005550006',
      provider: { kind: 'twilio', accountSid: 'AC0123456789abcdef', authToken: AUTH_TOKEN, baseUrl: twilioApi.baseUrl },
    });
    await create('twilio-other', {
      type: 'sms',
      address: '+15005550007',
      provider: {
        kind: 'twilio',
        accountSid: 'AC0123456789abcdef',
        authToken: 'another-token',
        baseUrl: twilioApi.baseUrl,
      },
    });
    await create('whatsapp', {
      type: 'whatsapp',
      address: '+15551234567',
      provider: {
        kind: 'whatsapp-cloud',
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: 'EAAG-access',
        appSecret: APP_SECRET,
        baseUrl: metaApi.baseUrl,
      },
    });
    await create('sandbox-sms', { type: 'sms', address: '+15005550008' });
    await create('mailbox', { type: 'email', address: mailbox });
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), receiver?.close(), twilioApi?.close(), metaApi?.close()]);
  });
}
