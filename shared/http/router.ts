import middy, { type MiddlewareObj } from '@middy/core';
import type * as z from '../kernel/validation/zod.ts';
import { HttpError } from './errors.ts';
import { bodyBytes, jsonBody, validate, validateBody, type UnknownFieldMessages } from './middleware.ts';
import type { Context, HttpEvent, HttpResult } from './types.ts';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `{ projectId: string; botId: string }` for `/projects/{projectId}/bots/{botId}`. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & PathParams<Rest>
  : Record<never, never>;

/**
 * What a route of a function that serves several paths (the management API) is, apart from what serves it: enough
 * for the router and for the OpenAPI document (`shared/openapi`), and built without any adapter. `body` says how the
 * body is read: a zod schema (JSON, validated), `raw` (bytes, e.g. knowledge uploads) or nothing (ignored).
 */
export interface RouteDeclaration<P extends string = string, TBody = unknown, TQuery = unknown> {
  method: RouteMethod;
  /** Path below the router's prefix, with `{name}` segments: `/projects/{projectId}`. */
  path: P;
  body?: z.ZodMiniType<TBody> | 'raw';
  /**
   * The query string's schema (an object of string-coercing fields): validated before the handler runs (400
   * `VALIDATION_ERROR`, one `details[]` entry per problem), and the parameters the OpenAPI document lists. Without
   * it the handler gets the raw parameters.
   */
  query?: z.ZodMiniType<TQuery>;
  unknownFieldMessages?: UnknownFieldMessages;
  /**
   * Accepts `Idempotency-Key` (the router's `idempotency` middleware): a retry with the same key and body gets the
   * stored answer and nothing runs twice. Never on a route whose answer shows a secret once: the stored answer
   * would keep it.
   */
  idempotent?: boolean;
}

type Options = Pick<RouteDeclaration, 'unknownFieldMessages' | 'idempotent'> & { method: RouteMethod };

/** Declares a route, its path parameters, body and query types inferred from the path and the schemas. */
export function route<const P extends string, S extends z.ZodMiniType, Q extends z.ZodMiniType = never>(
  r: Options & { path: P; body: S; query?: Q },
): RouteDeclaration<P, z.output<S>, QueryOf<Q>>;
export function route<const P extends string, Q extends z.ZodMiniType = never>(
  r: Options & { path: P; body: 'raw'; query?: Q },
): RouteDeclaration<P, Buffer, QueryOf<Q>>;
export function route<const P extends string, Q extends z.ZodMiniType = never>(
  r: Options & { path: P; query?: Q },
): RouteDeclaration<P, undefined, QueryOf<Q>>;
export function route(r: RouteDeclaration): RouteDeclaration {
  return r;
}

/** The handler's `query`: the schema's output when the route declares one, else the raw parameters. */
type QueryOf<Q> = [Q] extends [never] ? Record<string, string> : Q extends z.ZodMiniType ? z.output<Q> : never;

/** What a route's handler receives: the path parameters, the query string, the body as its declaration reads it. */
export interface RouteRequest<TParams = Record<string, string>, TBody = unknown, TQuery = Record<string, string>> {
  event: HttpEvent<TBody>;
  params: TParams;
  query: TQuery;
  body: TBody;
  requestId: string;
}

/** One handler per declared route, keyed as the declarations are: a route without its handler does not compile. */
export type RouteHandlers<D extends Record<string, RouteDeclaration>> = {
  [K in keyof D]: D[K] extends RouteDeclaration<infer P, infer B, infer Q>
    ? (request: RouteRequest<PathParams<P>, B, Q>) => Promise<HttpResult>
    : never;
};

/** A declared route with its handler. */
export interface BoundRoute extends RouteDeclaration {
  /** The route's name in its table (`createBot`): what per-route rules (who may call it) are keyed by. */
  name?: string;
  // Method syntax: each route's handler takes its own params and body; the router hands it what its chain read.
  handle(request: RouteRequest<Record<string, string>, unknown, unknown>): Promise<HttpResult>;
}

/** Pairs each declaration with its handler (same keys), in the declarations' order. */
export function bindRoutes<D extends Record<string, RouteDeclaration>>(
  declarations: D,
  handlers: RouteHandlers<D>,
): BoundRoute[] {
  return Object.entries(declarations).map(([name, declaration]) => ({
    ...declaration,
    name,
    handle: handlers[name as keyof D] as BoundRoute['handle'],
  }));
}

/** The event a route's own middleware chain sees: the path parameters the router matched ride on it. */
type RoutedEvent = HttpEvent & { routeParams: Record<string, string> };

const rawBody: MiddlewareObj<HttpEvent, HttpResult> = {
  name: 'rawBody',
  before: (request) => {
    request.event.parsedBody = bodyBytes(request.event);
  },
};

interface Compiled {
  route: BoundRoute;
  segments: string[];
  serve: (event: RoutedEvent, context: Context) => Promise<HttpResult>;
}

/**
 * The longest id a path may name. Every id this service issues is far shorter; a longer one names
 * nothing, and is answered 404 before any body is read or any key is built from it (DynamoDB refuses keys over
 * 2 KB with an error that would otherwise surface as a 500).
 */
export const MAX_PATH_ID_CHARS = 200;

/** A path parameter that names a resource by id (`{projectId}`, `{botId}`...), as opposed to a name (`{fileName}`). */
const isId = (name: string) => name.endsWith('Id');

/**
 * Matches `{prefix}/...` paths to routes: 404 NOT_FOUND for unknown paths and for ids over {@link MAX_PATH_ID_CHARS}
 * characters, 405 with `Allow` for a wrong method.
 * Each route runs behind a middy chain of its own, built once: `idempotency` (shared/idempotency) for the routes
 * marked `idempotent`, then its body (JSON validated against its schema, or raw bytes).
 */
export function createRouter(
  prefix: string,
  routes: readonly BoundRoute[],
  options: {
    idempotency?: MiddlewareObj<HttpEvent, HttpResult>;
    /** Runs once the route is matched, before its body is read: who may call it (throws to refuse). */
    authorize?: (route: BoundRoute, params: Record<string, string>, event: HttpEvent) => Promise<void> | void;
  } = {},
) {
  const compiled: Compiled[] = routes.map((r) => ({
    route: r,
    segments: split(r.path),
    serve: routeChain(r, options),
  }));

  return async function dispatch(event: HttpEvent, context: Context): Promise<HttpResult> {
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
      if (Object.entries(params).some(([name, value]) => isId(name) && value.length > MAX_PATH_ID_CHARS))
        throw new HttpError(404, 'NOT_FOUND', `No resource has an id longer than ${MAX_PATH_ID_CHARS} characters.`);
      if (options.authorize) await options.authorize(candidate.route, params, event);
      return candidate.serve(Object.assign(event, { routeParams: params }), context);
    }
    if (allowed.size) {
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${event.httpMethod} is not allowed here.`, {
        headers: { Allow: [...allowed].sort().join(', ') },
      });
    }
    throw new HttpError(404, 'NOT_FOUND', `No route for ${event.httpMethod} ${rawPath}.`);
  };
}

/**
 * The path parameters a request names, as {@link createRouter} would match them (same routes, same order), or
 * undefined when no route of that method matches, the path is malformed or an id is longer than the router accepts:
 * for what must know the request's project before the router runs (the caller's check).
 */
export function pathParamsOf(prefix: string, routes: readonly Pick<BoundRoute, 'method' | 'path'>[]) {
  const patterns = routes.map((r) => ({ method: r.method as string, segments: split(r.path) }));
  return (method: string, path: string): Record<string, string> | undefined => {
    if (!path.startsWith(prefix)) return undefined;
    let segments: string[];
    try {
      segments = split(path.slice(prefix.length)).map((s) => decodeURIComponent(s));
    } catch {
      return undefined;
    }
    const upper = method.toUpperCase();
    for (const pattern of patterns) {
      if (pattern.method !== upper) continue;
      const params = match(pattern.segments, segments);
      if (!params) continue;
      const tooLong = Object.entries(params).some(([name, v]) => isId(name) && v.length > MAX_PATH_ID_CHARS);
      return tooLong ? undefined : params;
    }
    return undefined;
  };
}

function routeChain(r: BoundRoute, options: { idempotency?: MiddlewareObj<HttpEvent, HttpResult> | undefined }) {
  const chain = middy<RoutedEvent, HttpResult, Error, Context>({ timeoutEarlyInMillis: 0 });
  if (r.idempotent && options.idempotency) chain.use(options.idempotency);
  if (r.body === 'raw') chain.use(rawBody);
  else if (r.body) chain.use(jsonBody()).use(validateBody(r.body, r.unknownFieldMessages));
  return chain.handler(async (event: RoutedEvent) => {
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) raw[k] = v;
    const query = r.query ? validate(r.query, raw) : raw;
    return r.handle({ event, params: event.routeParams, query, body: event.parsedBody, requestId: event.requestId });
  });
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
