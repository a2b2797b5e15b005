import type { RouteDeclaration } from '#shared/http/router.ts';
import { botRoutes } from '#shared/bots/index.ts';
import { channelRoutes } from '#shared/messaging/api/channel-routes.ts';
import { volumeRoutes } from '#shared/messaging/api/volume-routes.ts';
import { conversationRoutes } from '#shared/messaging/api/conversation-routes.ts';
import { eventRoutes } from '#shared/messaging/api/event-routes.ts';
import { integrationRoutes } from '#shared/integrations/index.ts';
import { projectRoutes } from '#shared/projects/index.ts';
import { sandboxRoutes } from '#shared/messaging/api/sandbox-routes.ts';
import { usageRoutes } from '#shared/credits/index.ts';
import { knowledgeRoutes } from '#shared/knowledge/api/admin-routes.ts';
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
