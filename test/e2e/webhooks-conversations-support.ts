import { afterAll, beforeAll, expect } from 'vitest';
import { type ServiceClient, sharedService } from '#test/support/service.ts';
import { type ReceivedDelivery, receiverPool } from './webhooks-support.ts';

/**
 * The service, receivers and helpers of the tests of webhooks for chat back ends (webhooks-conversations.test.ts,
 * webhooks-filter-health.test.ts), each file calling {@link useChatWebhooksService} once. The group's schedule
 * retries every 0.2 s, 4 attempts in all.
 */
export let svc: ServiceClient;
export const receivers = receiverPool();
export const receiver = receivers.start;

export async function project() {
  const { projectId } = await svc.newProject();
  const channel = async (type: 'sms' | 'email' | 'whatsapp' = 'sms', address = '+5511999990000') => {
    const res = await svc.admin('POST', `/projects/${projectId}/channels`, { type, name: `${type} channel`, address });
    expect(res.status).toBe(201);
    return res.body as { channelId: string };
  };
  const webhook = async (body: Record<string, unknown>) => {
    const res = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { integrationId: string; signingSecret?: string; publicKey: string | null; [k: string]: any };
  };
  const event = async (channelId: string, data: Record<string, unknown>, type = 'message.received') => {
    const res = await svc.admin('POST', `/projects/${projectId}/events`, { channelId, type, data });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.eventId as string;
  };
  const deliveries = async (integrationId: string) => {
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await svc.admin(
        'GET',
        `/projects/${projectId}/integrations/${integrationId}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    return items;
  };
  const patch = (integrationId: string, body: Record<string, unknown>) =>
    svc.admin('PATCH', `/projects/${projectId}/integrations/${integrationId}`, body);
  return { projectId, channel, webhook, event, deliveries, patch };
}

/** Per key, the event numbers (`data.n`) in the order their requests reached the receiver, every attempt counted. */
export function arrivalsByKey(received: ReceivedDelivery[], keyOf: (d: ReceivedDelivery) => string) {
  const byKey = new Map<string, number[]>();
  for (const d of [...received].sort((a, b) => a.arrivedAt - b.arrivedAt)) {
    const key = keyOf(d);
    byKey.set(key, [...(byKey.get(key) ?? []), d.json.data.n]);
  }
  return byKey;
}

/** Out-of-order arrivals: an attempt of an event after an attempt of a later event of its key. */
export function outOfOrder(arrivals: number[]): number {
  let seen = -Infinity;
  let wrong = 0;
  for (const n of arrivals) {
    if (n < seen) wrong++;
    seen = Math.max(seen, n);
  }
  return wrong;
}

/** Registers the file's hooks: the group's service for its tests, and its receivers closed after them. */
export function useChatWebhooksService(): void {
  beforeAll(async () => {
    svc = await sharedService();
  });
  afterAll(async () => {
    await receivers.closeAll();
    await svc?.close();
  });
}
