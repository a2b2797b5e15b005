import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { WebhookHealthReport } from '../health-report.ts';
import { webhookHealth } from './schemas.ts';

/** A webhook's last day of attempts, for the console's chart. */
export const webhookHealthRoutes = {
  webhookHealth: route({ method: 'GET', path: '/projects/{projectId}/integrations/{integrationId}/health' }),
};

/** The health route in the API reference (the OpenAPI document): what the declaration above cannot tell. */
export function webhookHealthRouteDocs(): RouteDocs<typeof webhookHealthRoutes> {
  return {
    webhookHealth: {
      operationId: 'getWebhookHealth',
      summary: "A webhook's last 24 hours, per hour",
      description:
        'Attempts succeeded and failed and the median attempt latency per hour, from counters each attempt updates ' +
        '(the delivery log is not read).',
      tags: ['Webhook deliveries'],
      responses: { 200: { description: 'The last 24 hours, oldest first.', body: webhookHealth } },
      errors: { 400: ['VALIDATION_ERROR'] },
    },
  };
}

/** What serves the webhook health route. */
export function webhookHealthHandlers(report: WebhookHealthReport): RouteHandlers<typeof webhookHealthRoutes> {
  return {
    webhookHealth: async ({ params }) => json(200, await report.lastDay(params.projectId, params.integrationId)),
  };
}
