import type { Channel } from '../messaging/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import type { IntegrationStore } from '../integrations/index.ts';
import { requireProject, type Project } from '../projects/index.ts';
import type { EventPublisher } from '../events/index.ts';
import { deliveryJobFor, deliveryView, orderKeyOfRecord, type DeliveryStatus } from './model.ts';
import type { DeliveryQueue, DeliveryStore, EventBodies, WebhookDirectory } from './ports.ts';
import { withStoredBodies } from './stored-bodies.ts';
import { failpoint } from '../kernel/failpoints.ts';
import type { PageRequest } from '../kernel/page.ts';

export interface WebhookAdminDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  channels: { get(projectId: string, channelId: string): Promise<Channel | undefined> };
  webhooks: Pick<WebhookDirectory, 'getWebhook'> & Pick<IntegrationStore, 'get'>;
  deliveries: DeliveryStore;
  bodies: EventBodies;
  events: EventPublisher;
  queue: DeliveryQueue;
  now?: () => number;
}

/**
 * What the management API offers around webhook deliveries:
 * - send a `webhook.test` to one webhook (`POST …/integrations/{i}/test`);
 * - list a webhook's deliveries, newest first, every attempt shown;
 * - retry a delivery by hand: one more attempt now, appended to the same delivery.
 */
export function makeWebhookAdmin(deps: WebhookAdminDeps) {
  const now = deps.now ?? Date.now;

  async function requireWebhook(projectId: string, integrationId: string) {
    const webhook = await deps.webhooks.getWebhook(projectId, integrationId);
    if (webhook) return webhook;
    await requireProject(deps.projects, projectId);
    if (await deps.webhooks.get(projectId, integrationId)) {
      throw new ValidationError(
        'Only webhook integrations send events and have deliveries; this is a custom integration.',
        [{ path: 'integrationId', message: 'Not a webhook', code: 'invalid_value' }],
      );
    }
    throw new NotFoundError('integration', `Integration ${integrationId} does not exist.`);
  }

  return {
    async sendTestEvent(
      projectId: string,
      integrationId: string,
      idempotency?: { scope: string; key: string; firstClaimedAt: number },
    ): Promise<{ eventId: string }> {
      const webhook = await requireWebhook(projectId, integrationId);
      const [project, channel] = await Promise.all([
        requireProject(deps.projects, projectId),
        webhook.channelId ? deps.channels.get(projectId, webhook.channelId) : Promise.resolve(undefined),
      ]);
      const envelope = await deps.events.publish(
        {
          type: 'webhook.test',
          projectId,
          companyId: project.companyId,
          channel: channel ? { id: channel.channelId, type: channel.type, address: channel.address } : null,
          data: { integrationId, message: 'This is a test event sent from Switchboard.' },
          onlyIntegrationId: integrationId,
        },
        // With an Idempotency-Key, a retry after a crash publishes the same event id.
        idempotency && {
          key: `test:${idempotency.scope}:${idempotency.key}`,
          at: new Date(idempotency.firstClaimedAt),
        },
      );
      return { eventId: envelope.id };
    },

    async listDeliveries(projectId: string, integrationId: string, options: { status?: DeliveryStatus } & PageRequest) {
      await requireWebhook(projectId, integrationId);
      const page = await deps.deliveries.list(projectId, integrationId, options);
      return { ...page, items: page.items.map(deliveryView) };
    },

    async retryDelivery(
      projectId: string,
      integrationId: string,
      deliveryId: string,
    ): Promise<{ deliveryId: string; status: 'pending' }> {
      const webhook = await requireWebhook(projectId, integrationId);
      const found = await deps.deliveries.get(projectId, integrationId, deliveryId);
      if (!found) throw new NotFoundError('delivery', `Delivery ${deliveryId} does not exist.`);
      const [record] = await withStoredBodies([found], deps.bodies);
      if (!record) throw new NotFoundError('delivery', `Delivery ${deliveryId} does not exist.`);
      // An ordered webhook's retry queues behind its conversation's deliveries in flight, never beside them.
      const job = deliveryJobFor(
        { ...record, projectId, integrationId, deliveryId, orderKey: orderKeyOfRecord(record) },
        {
          manual: true,
          acceptedAt: now(),
          attemptsBefore: record.attempts.length,
          ordered: webhook.ordering === 'conversation',
        },
      );
      if (job.body === undefined && job.bodyRef === undefined) {
        throw new ConflictError('This delivery has no stored body to send again.');
      }
      // Queued first, marked pending after (only if its attempt has not run yet): a crash in between leaves a queued
      // job whose attempt records the outcome, never a delivery shown pending with nothing to attempt it.
      const notSent = await deps.queue.enqueue([{ job }]);
      if (notSent.size) throw new Error('The retry could not be queued');
      failpoint('after-retry-enqueue');
      await deps.deliveries.markRetrying(projectId, integrationId, deliveryId, record.attempts.length);
      return { deliveryId, status: 'pending' };
    },
  };
}

export type WebhookAdmin = ReturnType<typeof makeWebhookAdmin>;
