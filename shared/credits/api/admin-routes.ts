import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { CreditUsageReport } from '#shared/credits/credit-usage.ts';
import type { WebhookHealthReport } from '#shared/webhooks/health-report.ts';

/** Read-only views for the console's charts: a webhook's last day of attempts, the month's bot credit use. */
export const usageRoutes = {
  webhookHealth: route({ method: 'GET', path: '/projects/{projectId}/integrations/{integrationId}/health' }),
  botCreditUsage: route({ method: 'GET', path: '/projects/{projectId}/bot-credits/usage' }),
};

/** What serves the usage routes. */
export function usageHandlers(deps: {
  webhookHealth: WebhookHealthReport;
  creditUsage: CreditUsageReport;
}): RouteHandlers<typeof usageRoutes> {
  return {
    webhookHealth: async ({ params }) =>
      json(200, await deps.webhookHealth.lastDay(params.projectId, params.integrationId)),
    botCreditUsage: async ({ params }) => {
      const usage = await deps.creditUsage.thisMonth(params.projectId);
      return json(200, {
        mes: usage.month,
        disponivel: usage.available,
        allowance: usage.allowance,
        granted: usage.granted,
        days: usage.days,
      });
    },
  };
}
