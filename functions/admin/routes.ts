import type { RouteDeclaration } from '#shared/http/router.ts';
import { botRoutes } from '#shared/bots/index.ts';
import {
  channelRoutes,
  conversationRoutes,
  eventRoutes,
  sandboxRoutes,
  volumeRoutes,
} from '#shared/messaging/index.ts';
import { integrationRoutes } from '#shared/integrations/index.ts';
import { projectRoutes } from '#shared/projects/index.ts';
import { usageRoutes } from '#shared/credits/index.ts';
import { knowledgeRoutes } from '#shared/knowledge/index.ts';
import { tenancyRoutes } from '#shared/tenancy/index.ts';
import { webhookRoutes } from '#shared/webhooks/index.ts';

/** Prefix of every management API path. */
export const ADMIN_PREFIX = '/admin/v1';

/**
 * Every management API route by name, as each area declares it (method, path, body and query schemas), in matching
 * order, without what serves them; names are unique across areas. The admin function binds each name to its
 * handler (`bindRoutes`, ./handler.ts); the OpenAPI document is built from {@link adminRoutes} and the areas' docs
 * without constructing an adapter.
 */
export const adminRouteTable = {
  ...eventRoutes,
  ...webhookRoutes,
  ...usageRoutes,
  ...projectRoutes,
  ...channelRoutes,
  ...volumeRoutes,
  ...conversationRoutes,
  ...sandboxRoutes,
  ...integrationRoutes,
  ...botRoutes,
  ...knowledgeRoutes,
  ...tenancyRoutes,
};

export const adminRoutes: readonly RouteDeclaration[] = Object.values(adminRouteTable);
