import type { RouteDeclaration } from '#shared/http/router.ts';
import { botRoutes } from './routes/bots.ts';
import { channelRoutes } from './routes/channels.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { eventRoutes } from './routes/events.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { projectRoutes } from './routes/projects.ts';
import { recoverRoutes } from './routes/recover.ts';
import { usageRoutes } from './routes/usage.ts';

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
  ...usageRoutes,
  ...projectRoutes,
  ...channelRoutes,
  ...integrationRoutes,
  ...botRoutes,
};

export const adminRoutes: readonly RouteDeclaration[] = Object.values(adminRouteTable);
