import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { startHttpDouble, startSmtpDouble, twilioQueued } from './send-doubles.ts';

/**
 * The service, provider doubles and helpers of the send tests (send.test.ts, send-errors.test.ts), each file calling
 * {@link useSendDoubles} once: a Twilio and a WhatsApp Cloud double over HTTP and an SMTP server, emptied before
 * each test.
 */
export let svc: ServiceClient;
export let smtp: Awaited<ReturnType<typeof startSmtpDouble>>;
export let twilio: Awaited<ReturnType<typeof startHttpDouble>>;
export let whatsapp: Awaited<ReturnType<typeof startHttpDouble>>;

/** The e2e group's SEND_PROVIDER_TIMEOUT_MS (test/support/groups/e2e.ts). */
export const PROVIDER_TIMEOUT_MS = 2000;

export const SEND = '/api/integration/generic';

export async function send(token: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}${SEND}`, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** A project with one channel and a custom token bound to it. */
export async function channelWithToken(channel: Record<string, unknown>) {
  const { projectId } = await svc.newProject();
  const created = await svc.admin('POST', `/projects/${projectId}/channels`, { name: 'Channel', ...channel });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const integration = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'custom',
    channelId: created.body.channelId,
  });
  expect(integration.status).toBe(201);
  return { projectId, channelId: created.body.channelId as string, token: integration.body.token as string };
}

export async function creditsOf(projectId: string, channelId: string): Promise<number | undefined> {
  const list = await svc.admin('GET', `/projects/${projectId}/channels`);
  return list.body.items.find((c: any) => c.channelId === channelId)?.credits;
}

export const smsChannel = (extra: Record<string, unknown> = {}) => ({
  type: 'sms',
  address: '+5511999990000',
  ...extra,
});
export const twilioProvider = () => ({
  kind: 'twilio',
  accountSid: 'AC0123456789abcdef',
  authToken: 'twilio-secret',
  baseUrl: twilio.baseUrl,
});
export const whatsappProvider = () => ({
  kind: 'whatsapp-cloud',
  phoneNumberId: '1098765',
  accessToken: 'wa-access-token',
  appSecret: 'wa-app-secret',
  baseUrl: whatsapp.baseUrl,
});
export const cloud = { appSecret: 'wa-app-secret', phoneNumberId: '1098765' };
// The double speaks SMTP without STARTTLS: the channel must say so explicitly (TLS is required by default).
export const smtpProvider = () => ({
  kind: 'smtp',
  host: '127.0.0.1',
  port: smtp.port,
  user: 'mailer',
  pass: 'smtp-pass',
  allowPlaintext: true,
});

/** Registers the file's hooks: the group's service and the doubles for its tests, emptied before each, closed after. */
export function useSendDoubles(): void {
  beforeAll(async () => {
    [svc, smtp, twilio, whatsapp] = await Promise.all([
      sharedService(),
      startSmtpDouble(),
      startHttpDouble({
        reply: (_req, i) => twilioQueued(i),
      }),
      startHttpDouble({
        reply: (_req, i) => ({
          status: 200,
          body: { messaging_product: 'whatsapp', messages: [{ id: `wamid.${i}` }] },
        }),
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), smtp?.close(), twilio?.close(), whatsapp?.close()]);
  });
  beforeEach(() => {
    twilio.reset();
    whatsapp.reset();
    smtp.mails.length = 0;
    smtp.setRefuse(false);
  });
}
