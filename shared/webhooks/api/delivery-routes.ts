import { route, type RouteHandlers } from '#shared/http/router.ts';
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
