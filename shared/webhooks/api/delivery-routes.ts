import { validate } from '#shared/http/middleware.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { WebhookAdmin } from '../manage-deliveries.ts';
import { DELIVERY_STATUSES } from '../model.ts';
import * as z from '#shared/kernel/validation/zod.ts';

const listQuery = z.strictObject({
  status: z.optional(z.enum(DELIVERY_STATUSES as ['pending', 'succeeded', 'failed'])),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 50),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});

/** A webhook's test event, its deliveries (newest first, every attempt) and the manual retry. */
export const deliveryRoutes = {
  sendTestEvent: route({
    method: 'POST',
    path: '/projects/{projectId}/integrations/{integrationId}/test',
    idempotent: true,
  }),
  listDeliveries: route({ method: 'GET', path: '/projects/{projectId}/integrations/{integrationId}/deliveries' }),
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
      json(200, await admin.listDeliveries(params.projectId, params.integrationId, validate(listQuery, query))),
    retryDelivery: async ({ params }) =>
      json(202, await admin.retryDelivery(params.projectId, params.integrationId, params.deliveryId)),
  };
}
