import { afterAll, beforeAll, expect } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { receiverPool } from './webhooks-support.ts';

/**
 * The service, receivers and project helper of the webhook delivery tests (webhooks.test.ts,
 * webhooks-events.test.ts), each file calling {@link useWebhooksService} once.
 */
export let svc: ServiceClient;
export const receivers = receiverPool();
export const receiver = receivers.start;

export async function project() {
  const { projectId } = await svc.newProject({ companyId: 1042 });
  const channel = async (type: 'sms' | 'email' | 'whatsapp' = 'sms', address = '+5511999990000') => {
    const res = await svc.admin('POST', `/projects/${projectId}/channels`, { type, name: `${type} channel`, address });
    expect(res.status).toBe(201);
    return res.body as { channelId: string; type: string; address: string };
  };
  const webhook = async (body: Record<string, unknown>) => {
    const res = await svc.admin('POST', `/projects/${projectId}/integrations`, { product: 'webhook', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { integrationId: string; signingSecret: string };
  };
  const event = async (
    channelId: string,
    type = 'message.sent',
    data: Record<string, unknown> = { messageId: 'msg_1' },
  ) => {
    const res = await svc.admin('POST', `/projects/${projectId}/events`, { channelId, type, data });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.eventId as string;
  };
  const deliveries = async (integrationId: string, query = '') => {
    const res = await svc.admin('GET', `/projects/${projectId}/integrations/${integrationId}/deliveries${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items as any[];
  };
  return { projectId, channel, webhook, event, deliveries };
}

/** Registers the file's hooks: the group's service for its tests, and its receivers closed after them. */
export function useWebhooksService(): void {
  beforeAll(async () => {
    // The group retries 4 times, 0.2 s apart (WEBHOOK_RETRY_SCHEDULE), not the deployed 5 s … 10 h: failures settle fast.
    svc = await sharedService();
  });
  afterAll(async () => {
    await receivers.closeAll();
    await svc?.close();
  });
}
