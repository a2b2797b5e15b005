import { DynamoChannelStore } from '#shared/adapters/dynamodb/channel-store.ts';
import { DynamoDeliveryStore } from '#shared/adapters/dynamodb/delivery-store.ts';
import { DynamoIntegrationStore } from '#shared/adapters/dynamodb/integration-store.ts';
import { DynamoProjectStore } from '#shared/adapters/dynamodb/project-store.ts';
import type { DynamoTable } from '#shared/adapters/dynamodb/table.ts';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import { SqsDeliveryQueue } from '#shared/adapters/sqs/webhook-queues.ts';
import type { Config } from '#shared/config/config.ts';
import { route, type Route } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { SecretBox } from '#shared/integrations/secret-box.ts';
import { makeWebhookAdmin, type WebhookAdmin } from '#shared/webhooks/admin.ts';
import { eventPublisherFromConfig } from '#shared/webhooks/event-publisher-from-config.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/webhooks/events.ts';
import * as z from '#shared/validation/zod.ts';

const reportEventBody = z.strictObject({
  channelId: z.string().check(z.minLength(1), z.maxLength(100)),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
});

/** Channel events reported by channel back ends, and the webhook test event. */
export function eventRoutes(admin: WebhookAdmin): Route[] {
  return [
    route({
      method: 'POST',
      path: '/projects/{projectId}/events',
      body: reportEventBody,
      // A channel back end that retries a report (a timeout, a lost answer) must not create the event twice.
      idempotent: true,
      handle: async ({ params, body }) => json(202, await admin.reportEvent(params.projectId!, body)),
    }),
    route({
      method: 'POST',
      path: '/projects/{projectId}/integrations/{integrationId}/test',
      idempotent: true,
      handle: async ({ params }) => json(202, await admin.sendTestEvent(params.projectId!, params.integrationId!)),
    }),
  ];
}

/** The webhook admin use cases wired to DynamoDB and SQS; shared by the events and deliveries routes. */
export function webhookAdminFromConfig(cfg: Config, table: DynamoTable, secretBox: SecretBox): WebhookAdmin {
  if (!cfg.QUEUE_URL_DELIVERIES) throw new Error('Invalid configuration: QUEUE_URL_DELIVERIES is required');
  return makeWebhookAdmin({
    projects: new DynamoProjectStore(table),
    channels: new DynamoChannelStore(table, secretBox),
    webhooks: new DynamoIntegrationStore(table, secretBox),
    deliveries: new DynamoDeliveryStore(table),
    events: eventPublisherFromConfig(cfg),
    queue: new SqsDeliveryQueue(sqsClient(cfg), cfg.QUEUE_URL_DELIVERIES),
  });
}
