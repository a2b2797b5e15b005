import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { WebhookHealthReport } from '../health-report.ts';

/** A webhook's last day of attempts, for the console's chart. */
export const webhookHealthRoutes = {
  webhookHealth: route({ method: 'GET', path: '/projects/{projectId}/integrations/{integrationId}/health' }),
};

/** What serves the webhook health route. */
export function webhookHealthHandlers(report: WebhookHealthReport): RouteHandlers<typeof webhookHealthRoutes> {
  return {
    webhookHealth: async ({ params }) => json(200, await report.lastDay(params.projectId, params.integrationId)),
  };
}
