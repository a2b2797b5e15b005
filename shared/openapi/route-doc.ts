import type * as z from '../kernel/validation/zod.ts';

/**
 * Documentation of a route for the generated OpenAPI document. The request body schema is the route's own `body`;
 * this adds what the code cannot tell: a summary, the answers and the error codes beyond the common ones.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  tags?: string[];
  /** Query parameters as a zod object (each key one optional or required parameter). */
  query?: z.ZodMiniObject;
  /** Success answers by status: the body's zod schema, or none (204, 202 without body). */
  responses: Record<number, { description: string; body?: z.ZodMiniType }>;
  /** Error codes by status beyond the common ones (401, 404 NOT_FOUND, validation, 500): `{ 409: ['CONFLICT'] }`. */
  errors?: Record<number, string[]>;
  /** For `body: 'raw'`: the media types accepted. */
  rawContentTypes?: string[];
}

/**
 * What the document reads of a management API route: `shared/http/router.ts`'s `RouteDeclaration` has this shape
 * (the admin function's `shared/openapi/admin-routes.ts`), and the document needs nothing else of it (no handler, no
 * adapter).
 */
export interface DocumentedRoute {
  method: string;
  path: string;
  body?: z.ZodMiniType | 'raw';
  idempotent?: boolean;
}
