import { route, type RouteHandlers } from '#shared/http/router.ts';
import { json } from '#shared/http/types.ts';
import type { CreditAccount } from '../credit-ledger.ts';
import type { CreditUsageReport } from '../credit-usage.ts';

/** Read-only view for the console's chart: the month's bot credit use. */
export const usageRoutes = {
  botCreditUsage: route({ method: 'GET', path: '/projects/{projectId}/bot-credits/usage' }),
};

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
