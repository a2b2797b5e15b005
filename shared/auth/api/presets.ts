import type { MiddlewareObj } from '@middy/core';
import { createRouter, type BoundRoute } from '../../http/router.ts';
import { httpFunction } from '../../http/middleware.ts';
import { readBody, type HttpHandler, type PresetOptions, type ScopedIdempotency } from '../../http/presets.ts';
import type { Context, HttpEvent, HttpResult } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { RateLimiter } from '../../ratelimit/index.ts';
import { makeAuthenticateApiToken, makeAuthenticateCustomToken } from '../authenticate.ts';
import type { CustomTokenGrant, TokenStore } from '../token-store.ts';
import { adminAuth } from './admin-auth.ts';
import { botsApiAuth, type BotsApiCaller } from './bots-api-auth.ts';
import { customTokenAuth } from './custom-token-auth.ts';
import { type CustomTokenLimitPorts, customTokenLimits } from './custom-token-limits.ts';

/**
 * The product's presets, one per kind of caller (`shared/http/presets.ts` has the generic parts): each returns a
 * middy handler with the HTTP conventions and the caller's auth, so `.handler(...)` receives an event whose `auth`
 * is the caller, with nothing to cast.
 */

/** A Bots API request once auth and the rate limit passed. */
export type BotsApiEvent<TBody = unknown> = HttpEvent<TBody, BotsApiCaller>;
/** A send-endpoint request once its custom token was recognised. */
export type CustomTokenEvent<TBody = unknown> = HttpEvent<TBody, CustomTokenGrant>;

/** The ports behind Bots API auth: the token store and the per-token rate limiter. */
export interface BotsApiAuthPorts {
  tokens: TokenStore;
  limiter: RateLimiter;
}

/** The ports behind a custom token's auth: the token store and the limits counted right after it. */
export interface CustomTokenAuthPorts {
  tokens: TokenStore;
  limits: CustomTokenLimitPorts;
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
    /**
     * The route's reads started once the token is known, while the rate limit is counted (see botsApiAuth): they
     * answer nothing, and a refused request leaves them unused.
     */
    beside?: (event: HttpEvent) => void;
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
      ...(options.beside ? { beside: options.beside } : {}),
    }),
  );
  if (options.idempotency) fn.use(options.idempotency((event: BotsApiEvent) => event.auth.grant.projectId));
  return readBody(fn, options.body);
}

/**
 * A custom-token function (send, message status, conversations): a custom token bound to one channel (401
 * ERR_NO_PERMISSION), its limits (429 RATE_LIMITED: the token's own, and the project's sends on the send routes),
 * then `Idempotency-Key` scoped to the token's integration, then the body.
 */
export function customTokenFunction<TBody = unknown>(
  options: PresetOptions<TBody> & CustomTokenAuthPorts,
): HttpHandler<CustomTokenEvent<TBody>> {
  const { logger } = options;
  const fn = httpFunction<CustomTokenEvent<TBody>>(logger, options.metrics)
    .use(customTokenAuth({ authenticate: makeAuthenticateCustomToken({ tokens: options.tokens }), logger }))
    .use(customTokenLimits(options.limits));
  // Custom tokens open one endpoint, send: its keys have been scoped `send:<integrationId>` from the start.
  if (options.idempotency) fn.use(options.idempotency((event: CustomTokenEvent) => `send:${event.auth.integrationId}`));
  return readBody(fn, options.body);
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
