import type { RouteDocs } from '#shared/contract/api-docs.ts';
import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { CreditAccount } from '../credit-ledger.ts';
import type { CreditUsageReport } from '../credit-usage.ts';
import { botCreditUsage } from './schemas.ts';

/** Read-only view for the console's chart: the month's bot credit use. */
export const usageRoutes = {
  botCreditUsage: route({ method: 'GET', path: '/projects/{projectId}/bot-credits/usage' }),
};

/** The usage route in the API reference (the OpenAPI document): what the declaration above cannot tell. */
export function usageRouteDocs(): RouteDocs<typeof usageRoutes> {
  return {
    botCreditUsage: {
      operationId: 'getBotCreditUsage',
      summary: 'Bot credits used per day this month',
      description: 'Credits charged and refunded per UTC day up to today, with the balance, the allowance and grants.',
      tags: ['Projects'],
      responses: { 200: { description: "The month's use.", body: botCreditUsage } },
    },
  };
}

/** What serves the usage routes. */
export function usageHandlers(deps: {
  creditUsage: CreditUsageReport;
  /** The project's credit account; 404 NOT_FOUND for an unknown project. */
  accountOf(projectId: string): Promise<CreditAccount>;
}): RouteHandlers<typeof usageRoutes> {
  return {
    botCreditUsage: async ({ params }) => {
      const usage = await deps.creditUsage.thisMonth(await deps.accountOf(params.projectId));
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
