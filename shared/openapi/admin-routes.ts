import type { RouteDeclaration } from '#shared/http/router.ts';
import { botRoutes } from '../bots/api/admin-routes.ts';
import { channelRoutes } from '../messaging/api/channel-routes.ts';
import { conversationRoutes } from '../messaging/api/conversation-routes.ts';
import { deliveryRoutes } from '../webhooks/api/delivery-routes.ts';
import { eventRoutes } from '../messaging/api/event-routes.ts';
import { integrationRoutes } from '../integrations/api/admin-routes.ts';
import { projectRoutes } from '../projects/api/admin-routes.ts';
import { recoverRoutes } from '../webhooks/api/recover-routes.ts';
import { sandboxRoutes } from '../messaging/api/sandbox-routes.ts';
import { usageRoutes } from '../credits/api/admin-routes.ts';
import { knowledgeRoutes } from '../knowledge/api/admin-routes.ts';
import { webhookHealthRoutes } from '../webhooks/api/health-routes.ts';

/** Prefix of every management API path. */
export const ADMIN_PREFIX = '/admin/v1';

/**
 * Every management API route by name, as declared (method, path, body schema), in matching order, without what
 * serves them; names are unique across areas. The admin handler binds each name to its handler (`bindRoutes`); the OpenAPI document
 * (`shared/openapi`) is built from {@link adminRoutes} without constructing an adapter.
 */
export const adminRouteTable = {
  ...eventRoutes,
  ...deliveryRoutes,
  ...recoverRoutes,
  ...webhookHealthRoutes,
  ...usageRoutes,
  ...projectRoutes,
  ...channelRoutes,
  ...conversationRoutes,
  ...sandboxRoutes,
  ...integrationRoutes,
  ...botRoutes,
  ...knowledgeRoutes,
};

export const adminRoutes: readonly RouteDeclaration[] = Object.values(adminRouteTable);
