import type { MiddlewareObj, MiddyfiedHandler } from '@middy/core';
import { makeAuthenticateApiToken, makeAuthenticateCustomToken } from '../auth/authenticate.ts';
import type { CustomTokenGrant, TokenStore } from '../auth/token-store.ts';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';
import type { RateLimiter } from '../ratelimit/gcra.ts';
import type * as z from '../kernel/validation/zod.ts';
import { adminAuth } from '../auth/api/admin-auth.ts';
import { botsApiAuth, type BotsApiCaller } from '../auth/api/bots-api-auth.ts';
import { customTokenAuth } from '../auth/api/custom-token-auth.ts';
import { httpFunction, jsonBody, rawBody, validateBody, type UnknownFieldMessages } from './middleware.ts';
import { createRouter, type BoundRoute } from './router.ts';
import type { Context, HttpEvent, HttpResult } from './types.ts';

/**
 * Typed presets: one per kind of caller. Each returns a middy handler with the HTTP conventions, the caller's auth,
 * `Idempotency-Key` when asked for, and the body read as asked; `.handler(...)` then receives an event whose
 * `auth` is the caller and whose `parsedBody` has the body's type, with nothing to cast.
 */
export type HttpHandler<TEvent> = MiddyfiedHandler<TEvent, HttpResult, Error, Context>;

/**
 * How a preset reads the body, and the type its handler then sees in `parsedBody`. Without one, the handler reads
 * the raw body itself. A separate value rather than a flag, so a function that reads no body bundles no reader.
 */
export interface BodyReading<TBody> {
  readonly middlewares: MiddlewareObj<HttpEvent, HttpResult>[];
  /** Type only: what `parsedBody` holds once the middlewares ran. */
  readonly body?: TBody;
}

/** A JSON object body: 413 PAYLOAD_TOO_LARGE over 10 MB (before parsing), 400 INVALID_JSON, 400 when not an object. */
export function jsonObjectBody(): BodyReading<Record<string, unknown>> {
  return { middlewares: [jsonBody()] };
}

/** A JSON object body validated against a (strict) zod schema: 400 VALIDATION_ERROR listing every problem. */
export function validatedBody<S extends z.ZodMiniType>(
  schema: S,
  unknownFieldMessages?: UnknownFieldMessages,
): BodyReading<z.output<S>> {
  return { middlewares: [jsonBody(), validateBody(schema, unknownFieldMessages)] };
}

/** The body as bytes, exactly as sent (what a provider signs): 413 PAYLOAD_TOO_LARGE over `limitBytes`. */
export function rawBytesBody(limitBytes: number): BodyReading<Buffer> {
  return { middlewares: [rawBody(limitBytes)] };
}

/**
 * `Idempotency-Key` support (`shared/http/idempotency.ts`) with its store and lock already chosen, given whose keys they are.
 * Passed in rather than built here, so a function that takes no key bundles none of it.
 */
export type ScopedIdempotency = <TEvent extends HttpEvent>(
  scope: (event: TEvent) => string,
) => MiddlewareObj<TEvent, HttpResult>;

interface PresetOptions<TBody> {
  logger: Logger;
  /** The function's metrics, published at the end of each invocation. */
  metrics?: InvocationMetrics;
  idempotency?: ScopedIdempotency;
  body?: BodyReading<TBody>;
}

/** A Bots API request once auth and the rate limit passed. */
export type BotsApiEvent<TBody = unknown> = HttpEvent<TBody, BotsApiCaller>;
/** A send-endpoint request once its custom token was recognised. */
export type CustomTokenEvent<TBody = unknown> = HttpEvent<TBody, CustomTokenGrant>;

/** The ports behind Bots API auth: the token store and the per-token rate limiter. */
export interface BotsApiAuthPorts {
  tokens: TokenStore;
  limiter: RateLimiter;
}

/**
 * A `/api/v1/ai/*` function: project API token (401), rate limit (429, RateLimit-* headers), then
 * `Idempotency-Key` scoped to the caller's project, then the body.
 */
export function botsApiFunction<TBody = unknown>(
  options: PresetOptions<TBody> & {
    auth: BotsApiAuthPorts;
    /**
     * The chain the preset starts from: `httpFunction` (default) or `httpStreamingFunction` for a route whose answer
     * is streamed. Passed in, so a function that does not stream bundles no streaming code.
     */
    base?: <TEvent extends HttpEvent>(logger: Logger, metrics?: InvocationMetrics) => HttpHandler<TEvent>;
    /** Runs on every error before the conventions answer it: the OpenAI-format routes' own error body. */
    errorBody?: MiddlewareObj<HttpEvent, HttpResult>;
  },
): HttpHandler<BotsApiEvent<TBody>> {
  const { logger } = options;
  const fn = (options.base ?? httpFunction)<BotsApiEvent<TBody>>(logger, options.metrics);
  if (options.errorBody) fn.use(options.errorBody);
  fn.use(
    botsApiAuth({
      authenticate: makeAuthenticateApiToken({ tokens: options.auth.tokens }),
      limiter: options.auth.limiter,
      logger,
    }),
  );
  if (options.idempotency) fn.use(options.idempotency((event: BotsApiEvent) => event.auth.grant.projectId));
  return readBody(fn, options.body);
}

/**
 * The send function: a custom token bound to one channel (401 ERR_NO_PERMISSION), then `Idempotency-Key` scoped to
 * the token's integration, then the body.
 */
export function customTokenFunction<TBody = unknown>(
  options: PresetOptions<TBody> & { tokens: TokenStore },
): HttpHandler<CustomTokenEvent<TBody>> {
  const { logger } = options;
  const fn = httpFunction<CustomTokenEvent<TBody>>(logger, options.metrics).use(
    customTokenAuth({ authenticate: makeAuthenticateCustomToken({ tokens: options.tokens }), logger }),
  );
  // Custom tokens open one endpoint, send: its keys have been scoped `send:<integrationId>` from the start.
  if (options.idempotency) fn.use(options.idempotency((event: CustomTokenEvent) => `send:${event.auth.integrationId}`));
  return readBody(fn, options.body);
}

/**
 * A public address a provider calls (Twilio, WhatsApp Cloud): no bearer token, since the provider's own signature
 * over the request, which the use case checks, is the authentication; then the body.
 */
export function providerFunction<TBody = unknown>(options: {
  logger: Logger;
  metrics?: InvocationMetrics;
  body?: BodyReading<TBody>;
}): HttpHandler<HttpEvent<TBody>> {
  return readBody(httpFunction<HttpEvent<TBody>>(options.logger, options.metrics), options.body);
}

/**
 * The management API: the admin key (401), then routing inside one function (404, 405 + Allow). Each route gets its
 * own chain: `Idempotency-Key` for the routes declared `idempotent` (one admin key per deployment, so one scope),
 * then its body as declared.
 */
export function adminFunction(options: {
  logger: Logger;
  adminKey: string;
  prefix: string;
  routes: readonly BoundRoute[];
  idempotency: ScopedIdempotency;
}): HttpHandler<HttpEvent> {
  const dispatch = createRouter(options.prefix, options.routes, { idempotency: options.idempotency(() => 'admin') });
  return httpFunction(options.logger)
    .use(adminAuth(options.adminKey))
    .handler((event: HttpEvent, context: Context) => dispatch(event, context));
}

function readBody<TEvent extends HttpEvent>(
  fn: HttpHandler<TEvent>,
  body: BodyReading<unknown> | undefined,
): HttpHandler<TEvent> {
  return body ? fn.use(body.middlewares) : fn;
}
