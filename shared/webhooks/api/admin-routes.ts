import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { deliveryRouteDocs, deliveryRoutes } from './delivery-routes.ts';
import { webhookHealthRouteDocs, webhookHealthRoutes } from './health-routes.ts';
import { recoverRouteDocs, recoverRoutes } from './recover-routes.ts';

/** The area's management routes, in matching order: the test event, deliveries and retries, recover, health. */
export const webhookRoutes = { ...deliveryRoutes, ...recoverRoutes, ...webhookHealthRoutes };

/** Their docs, by the same names. */
export function webhookRouteDocs(): RouteDocs<typeof webhookRoutes> {
  return { ...deliveryRouteDocs(), ...recoverRouteDocs(), ...webhookHealthRouteDocs() };
}
