import type { RouteDoc } from '../../contract/api-docs.ts';
import { auditRouteDocs, auditRoutes } from './audit-routes.ts';
import { keyRouteDocs, keyRoutes } from './key-routes.ts';
import { portalRouteDocs, portalRoutes } from './portal-routes.ts';

/** The area's management routes: project keys, portal links and sessions, the audit log. */
export const tenancyRoutes = { ...keyRoutes, ...portalRoutes, ...auditRoutes };

export function tenancyRouteDocs(): { [K in keyof typeof tenancyRoutes]: RouteDoc } {
  return { ...keyRouteDocs(), ...portalRouteDocs(), ...auditRouteDocs() };
}
