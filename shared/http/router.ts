import type { MiddlewareObj, Request } from '@middy/core';
import type { RouteDoc } from '../openapi/route-doc.ts';
import type * as z from '../validation/zod.ts';
import { HttpError } from './errors.ts';
import { bodyBytes, parseJsonObjectBody, validate, type UnknownFieldMessages } from './middleware.ts';
import type { HttpEvent, HttpResult } from './types.ts';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRequest<TBody = unknown> {
  event: HttpEvent;
  params: Record<string, string>;
  query: Record<string, string>;
  body: TBody;
  requestId: string;
}

/**
 * A route inside a function that serves several paths (the management API). `body` says how the body is read:
 * a zod schema (JSON, validated), `raw` (bytes, e.g. knowledge uploads) or nothing (ignored).
 */
export interface Route<TBody = any> {
  method: RouteMethod;
  /** Path below the router's prefix, with `{name}` segments: `/projects/{projectId}`. */
  path: string;
  body?: z.ZodMiniType<TBody> | 'raw';
  unknownFieldMessages?: UnknownFieldMessages;
  /** How the route appears in the OpenAPI document (`shared/openapi`); changes nothing at run time. */
  doc?: RouteDoc;
  /**
   * Accepts `Idempotency-Key` (the router's `idempotency` middleware): a retry with the same key and body gets the
   * stored answer and nothing runs twice. Never on a route whose answer shows a secret once: the stored answer
   * would keep it.
   */
  idempotent?: boolean;
  handle(request: RouteRequest<TBody>): Promise<HttpResult>;
}

/** Declares a route with its body type inferred from the schema. */
export function route<S extends z.ZodMiniType>(r: Omit<Route<z.output<S>>, 'body'> & { body: S }): Route<z.output<S>>;
export function route(r: Omit<Route<Buffer>, 'body'> & { body: 'raw' }): Route<Buffer>;
export function route(r: Omit<Route<undefined>, 'body'>): Route<undefined>;
export function route(r: Route): Route {
  return r;
}

interface Compiled {
  route: Route;
  segments: string[];
}

/**
 * Matches `{prefix}/...` paths to routes: 404 NOT_FOUND for unknown paths, 405 with `Allow` for a wrong method.
 * `idempotency` (shared/idempotency) runs around the routes marked `idempotent`.
 */
export function createRouter(
  prefix: string,
  routes: Route[],
  options: { idempotency?: MiddlewareObj<HttpEvent, HttpResult> } = {},
) {
  const compiled: Compiled[] = routes.map((r) => ({ route: r, segments: split(r.path) }));

  return async function dispatch(event: HttpEvent): Promise<HttpResult> {
    const rawPath = event.path ?? '/';
    if (!rawPath.startsWith(prefix)) throw new HttpError(404, 'NOT_FOUND', `No route for ${rawPath}.`);
    let segments: string[];
    try {
      segments = split(rawPath.slice(prefix.length)).map((s) => decodeURIComponent(s));
    } catch {
      throw new HttpError(404, 'NOT_FOUND', 'Malformed path.');
    }
    const allowed = new Set<string>();
    for (const candidate of compiled) {
      const params = match(candidate.segments, segments);
      if (!params) continue;
      if (candidate.route.method !== event.httpMethod.toUpperCase()) {
        allowed.add(candidate.route.method);
        continue;
      }
      if (candidate.route.idempotent && options.idempotency)
        return withMiddleware(options.idempotency, event, () => run(candidate.route, event, params));
      return run(candidate.route, event, params);
    }
    if (allowed.size) {
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${event.httpMethod} is not allowed here.`, {
        headers: { Allow: [...allowed].sort().join(', ') },
      });
    }
    throw new HttpError(404, 'NOT_FOUND', `No route for ${event.httpMethod} ${rawPath}.`);
  };
}

/** Runs one middy middleware (before, after, onError) around a route, as middy would around a handler. */
async function withMiddleware(
  middleware: MiddlewareObj<HttpEvent, HttpResult>,
  event: HttpEvent,
  handle: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const request = { event, context: {}, response: undefined, error: undefined, internal: {} } as unknown as Request<
    HttpEvent,
    HttpResult
  >;
  const early = await middleware.before?.(request);
  if (early) return early as HttpResult;
  try {
    request.response = await handle();
  } catch (error) {
    request.error = error as Error;
    await middleware.onError?.(request);
    throw error;
  }
  await middleware.after?.(request);
  return request.response;
}

async function run(r: Route, event: HttpEvent, params: Record<string, string>): Promise<HttpResult> {
  let body: unknown;
  if (r.body === 'raw') {
    body = bodyBytes(event);
  } else if (r.body) {
    body = validate(r.body, parseJsonObjectBody(event), r.unknownFieldMessages);
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) query[k] = v;
  return r.handle({ event, params, query, body, requestId: event.requestId });
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function match(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith('{') && p.endsWith('}')) params[p.slice(1, -1)] = a;
    else if (p !== a) return undefined;
  }
  return params;
}
