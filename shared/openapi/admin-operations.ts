import type { RouteDoc } from '../contract/api-docs.ts';

/**
 * Documentation of every management API route, keyed by `METHOD path` as the route declares it. The request body
 * schema is never repeated here: the document takes it from the route's declaration. A route without an entry is
 * reported as undocumented (and fails a test).
 */
export const ADMIN_ROUTE_DOCS: Record<string, RouteDoc> = {};
