import type { RouteDocs } from '../../contract/api-docs.ts';
import { pageQuery } from '../../http/pagination.ts';
import { route, type RouteHandlers } from '../../http/router.ts';
import { json } from '../../http/types.ts';
import type { ListAudit } from '../list-audit.ts';
import { auditPage } from './schemas.ts';

/** The project's audit log: who changed what through the management API. */
export const auditRoutes = {
  listAudit: route({ method: 'GET', path: '/projects/{projectId}/audit', query: pageQuery }),
};

export function auditRouteDocs(): RouteDocs<typeof auditRoutes> {
  return {
    listAudit: {
      operationId: 'listAuditEntries',
      summary: 'Read the audit log',
      description:
        'Every successful change made through the management API to this project, newest first: who (the ' +
        'operator, a project key, a portal session), the route, what it touched, the request id and, for a ' +
        'change, each field before and after. Never a secret. Kept 365 days. `admin` and `developer` roles.',
      tags: ['Access'],
      responses: { 200: { description: 'A page of entries.', body: auditPage } },
    },
  };
}

export function auditHandlers(audit: ListAudit): RouteHandlers<typeof auditRoutes> {
  return {
    listAudit: async ({ params, query }) => json(200, await audit(params.projectId, query)),
  };
}
