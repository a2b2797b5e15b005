import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { eventAccepted } from '../../messaging/index.ts';
import { deliveryPage, retryAccepted } from './schemas.ts';
import { json } from '#shared/http/types.ts';
import type { WebhookAdmin } from '../manage-deliveries.ts';
import { DELIVERY_STATUSES } from '../model.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { withMeta } from '#shared/kernel/validation/meta.ts';
import { pageQueryWith } from '#shared/http/pagination.ts';

const listQuery = pageQueryWith({
  status: withMeta(z.optional(z.enum(DELIVERY_STATUSES as ['pending', 'succeeded', 'failed'])), {
    description: 'Only deliveries in this state.',
    examples: ['failed'],
  }),
});

/** A webhook's test event, its deliveries (newest first, every attempt) and the manual retry. */
export const deliveryRoutes = {
  sendTestEvent: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/test',
    idempotent: true,
  }),
  listDeliveries: route({
    method: 'GET',
    path: '/projects/{projectId}/integrations/{integrationId}/deliveries',
    query: listQuery,
  }),
  retryDelivery: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/deliveries/{deliveryId}/retry',
  }),
};

/** The delivery routes in the API reference (the OpenAPI document): what the declarations above cannot tell. */
export function deliveryRouteDocs(): RouteDocs<typeof deliveryRoutes> {
  return {
    sendTestEvent: {
      operationId: 'sendTestEvent',
      summary: 'Send a test event to one webhook',
      description: 'Queues a `webhook.test` event delivered to this webhook only; follow it in the delivery log.',
      tags: ['Webhook deliveries'],
      responses: { 202: { description: 'Queued.', body: eventAccepted } },
      // A custom integration has no deliveries: 400 (the same for the delivery log and retries).
      errors: { 400: ['VALIDATION_ERROR'] },
    },
    listDeliveries: {
      operationId: 'listDeliveries',
      summary: "A webhook's delivery log",
      description: 'Newest first; every attempt with its time, status code, duration and error.',
      tags: ['Webhook deliveries'],
      responses: { 200: { description: 'Deliveries, newest first.', body: deliveryPage } },
      errors: { 400: ['VALIDATION_ERROR'] },
    },
    retryDelivery: {
      operationId: 'retryDelivery',
      summary: 'Retry a delivery now',
      description: 'One more attempt, appended to the same delivery (same `webhook-id`).',
      tags: ['Webhook deliveries'],
      responses: { 202: { description: 'Queued.', body: retryAccepted } },
      errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
    },
  };
}

/** What serves the delivery routes. */
export function deliveryHandlers(admin: WebhookAdmin): RouteHandlers<typeof deliveryRoutes> {
  return {
    sendTestEvent: async ({ params, event }) =>
      json(202, await admin.sendTestEvent(params.projectId, params.integrationId, event.idempotency)),
    listDeliveries: async ({ params, query }) =>
      json(200, await admin.listDeliveries(params.projectId, params.integrationId, query)),
    retryDelivery: async ({ params }) =>
      json(202, await admin.retryDelivery(params.projectId, params.integrationId, params.deliveryId)),
  };
}
