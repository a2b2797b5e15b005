import type { DocumentedRoute, PublicOperationDocs, RouteDoc } from '../contract/api-docs.ts';
import { pollEventsDocs } from '../polling/index.ts';
import { botRouteDocs, botRoutes } from '../bots/index.ts';
import { completionPublicDocs } from '../completion/index.ts';
import { usageRouteDocs, usageRoutes } from '../credits/index.ts';
import { extractPdfDocs, extractUploadDocs } from '../extract/index.ts';
import { healthOperationDocs } from '../health/index.ts';
import {
  channelRouteDocs,
  channelRoutes,
  conversationRouteDocs,
  conversationRoutes,
  eventRouteDocs,
  eventRoutes,
  messagingOperationDocs,
  sandboxRouteDocs,
  sandboxRoutes,
  volumeOperationDocs,
  volumeRouteDocs,
  volumeRoutes,
} from '../messaging/index.ts';
import { knowledgeRouteDocs, knowledgeRoutes, searchDocs } from '../knowledge/index.ts';
import { integrationRouteDocs, integrationRoutes } from '../integrations/index.ts';
import { projectRouteDocs, projectRoutes } from '../projects/index.ts';
import { siteOperationDocs } from '../site/index.ts';
import { tenancyRouteDocs, tenancyRoutes } from '../tenancy/index.ts';
import { webhookRouteDocs, webhookRoutes } from '../webhooks/index.ts';

/**
 * The documentation each area writes beside its routes, gathered for the document. Adding an area with routes:
 * one line here (its management routes' docs by their declarations, or its public operations' docs).
 * Areas not converted yet still have theirs in ./admin-operations.ts and ./public-operations.ts.
 */

/** Management routes' docs by `METHOD path` (below the `/admin/v1` prefix). */
export function areaAdminDocs(): Record<string, RouteDoc> {
  return {
    ...byKey(botRoutes, botRouteDocs()),
    ...byKey(knowledgeRoutes, knowledgeRouteDocs()),
    ...byKey(projectRoutes, projectRouteDocs()),
    ...byKey(usageRoutes, usageRouteDocs()),
    ...byKey(eventRoutes, eventRouteDocs()),
    ...byKey(channelRoutes, channelRouteDocs()),
    ...byKey(volumeRoutes, volumeRouteDocs()),
    ...byKey(conversationRoutes, conversationRouteDocs()),
    ...byKey(sandboxRoutes, sandboxRouteDocs()),
    ...byKey(integrationRoutes, integrationRouteDocs()),
    ...byKey(tenancyRoutes, tenancyRouteDocs()),
    ...byKey(webhookRoutes, webhookRouteDocs()),
  };
}

/** Public routes' docs by `METHOD path`, as `shared/contract/routes.ts` declares them. */
export function areaPublicDocs(): PublicOperationDocs {
  return {
    ...completionPublicDocs(),
    ...extractPdfDocs(),
    ...extractUploadDocs(),
    ...healthOperationDocs(),
    ...siteOperationDocs(),
    ...pollEventsDocs(),
    ...searchDocs(),
    ...messagingOperationDocs(),
    ...volumeOperationDocs(),
  };
}

function byKey<D extends Record<string, DocumentedRoute>>(
  routes: D,
  docs: { [K in keyof D]: RouteDoc },
): Record<string, RouteDoc> {
  return Object.fromEntries(Object.entries(routes).map(([name, r]) => [`${r.method} ${r.path}`, docs[name]!]));
}
