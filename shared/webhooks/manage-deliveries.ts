import type { Channel } from '../messaging/channel.ts';
import { ChannelNotFoundError } from '../messaging/errors.ts';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import type { IntegrationStore } from '../integrations/integration.ts';
import { requireProject, type Project } from '../projects/project.ts';
import type { EventPublisher, WebhookEventType } from '../events/envelope.ts';
import { deliveryJobFor, deliveryView, type DeliveryStatus } from './model.ts';
import type { DeliveryQueue, DeliveryStore, WebhookDirectory } from './ports.ts';

export interface WebhookAdminDeps {
  projects: { get(projectId: string): Promise<Project | undefined> };
  channels: { get(projectId: string, channelId: string): Promise<Channel | undefined> };
  webhooks: Pick<WebhookDirectory, 'getWebhook'> & Pick<IntegrationStore, 'get'>;
  deliveries: DeliveryStore;
  events: EventPublisher;
  queue: DeliveryQueue;
  now?: () => number;
}

/**
 * What the management API offers around webhook events and deliveries:
 * - report a channel event (`POST /projects/{p}/events`): the channel must be the project's; queued, 202;
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
    async reportEvent(
      projectId: string,
      input: { channelId: string; type: WebhookEventType; data: Record<string, unknown> },
    ): Promise<{ eventId: string }> {
      const channel = await deps.channels.get(projectId, input.channelId);
      if (!channel) {
        await requireProject(deps.projects, projectId);
        throw new ChannelNotFoundError(input.channelId);
      }
      const envelope = await deps.events.publish({
        type: input.type,
        projectId,
        companyId: channel.companyId,
        channel: { id: channel.channelId, type: channel.type, address: channel.address },
        data: input.data,
      });
      return { eventId: envelope.id };
    },

    async sendTestEvent(projectId: string, integrationId: string): Promise<{ eventId: string }> {
      const webhook = await requireWebhook(projectId, integrationId);
      const [project, channel] = await Promise.all([
        requireProject(deps.projects, projectId),
        webhook.channelId ? deps.channels.get(projectId, webhook.channelId) : Promise.resolve(undefined),
      ]);
      const envelope = await deps.events.publish({
        type: 'webhook.test',
        projectId,
        companyId: project.companyId,
        channel: channel ? { id: channel.channelId, type: channel.type, address: channel.address } : null,
        data: { integrationId, message: 'This is a test event sent from Switchboard.' },
        onlyIntegrationId: integrationId,
      });
      return { eventId: envelope.id };
    },

    async listDeliveries(
      projectId: string,
      integrationId: string,
      options: { status?: DeliveryStatus; limit: number; cursor?: string },
    ) {
      await requireWebhook(projectId, integrationId);
      const page = await deps.deliveries.list(projectId, integrationId, options);
      return { items: page.items.map(deliveryView), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    async retryDelivery(
      projectId: string,
      integrationId: string,
      deliveryId: string,
    ): Promise<{ deliveryId: string; status: 'pending' }> {
      await requireWebhook(projectId, integrationId);
      const record = await deps.deliveries.markRetrying(projectId, integrationId, deliveryId);
      if (!record) throw new NotFoundError('delivery', `Delivery ${deliveryId} does not exist.`);
      const job = deliveryJobFor(
        { ...record, projectId, integrationId, deliveryId },
        { manual: true, acceptedAt: now(), attemptsBefore: record.attempts.length },
      );
      if (job.body === undefined && job.bodyRef === undefined) {
        throw new ConflictError('This delivery has no stored body to send again.');
      }
      const notSent = await deps.queue.enqueue([{ job }]);
      if (notSent.size) throw new Error('The retry could not be queued');
      return { deliveryId, status: 'pending' };
    },
  };
}

export type WebhookAdmin = ReturnType<typeof makeWebhookAdmin>;
