import type { MiddyfiedHandler } from '@middy/core';
import { makeAuthenticateApiToken, makeAuthenticateCustomToken } from '../auth/authenticate.ts';
import type { CustomTokenGrant, TokenStore } from '../auth/token-store.ts';
import { idempotency } from '../idempotency/idempotency.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import type { Logger } from '../logging/logger.ts';
import type { RateLimiter } from '../ratelimit/gcra.ts';
import type * as z from '../validation/zod.ts';
import { adminAuth } from './admin-auth.ts';
import { botsApiAuth, type BotsApiCaller } from './bots-api.ts';
import { customTokenAuth } from './custom-token.ts';
import { httpFunction, jsonBody, validateBody, type UnknownFieldMessages } from './middleware.ts';
import { createRouter, type BoundRoute } from './router.ts';
import type { Context, HttpEvent, HttpResult } from './types.ts';

/**
 * Typed presets: one per kind of caller. Each returns a middy handler with the HTTP conventions, the caller's auth,
 * `Idempotency-Key` when asked for, and the body read as asked; `.handler(...)` then receives an event whose
 * `auth` is the caller and whose `parsedBody` has the body's type, with nothing to cast.
 */
export type HttpHandler<TEvent> = MiddyfiedHandler<TEvent, HttpResult, Error, Context>;

/**
 * How the preset reads the body: omitted, the handler reads the raw body itself; `'json'`, a JSON object
 * (413/400 INVALID_JSON before the handler); a zod schema, that object validated (400 VALIDATION_ERROR).
 */
export type BodyReading = 'json' | z.ZodMiniType | undefined;
export type BodyOf<B extends BodyReading> = B extends z.ZodMiniType
  ? z.output<B>
  : B extends 'json'
    ? Record<string, unknown>
    : unknown;

/** `Idempotency-Key` support: where the keys are kept, and how long a request holds its key. */
export interface IdempotencySettings {
  store: IdempotencyStore;
  /** The function's timeout plus a margin: a retry takes the key over only once the first run cannot be running. */
  lockSeconds: number;
}

interface PresetOptions<B extends BodyReading> {
  logger: Logger;
  idempotency?: IdempotencySettings;
  body?: B;
  unknownFieldMessages?: UnknownFieldMessages;
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
export function botsApiFunction<B extends BodyReading = undefined>(
  options: PresetOptions<B> & { auth: BotsApiAuthPorts },
): HttpHandler<BotsApiEvent<BodyOf<B>>> {
  const { logger } = options;
  const fn = httpFunction<BotsApiEvent<BodyOf<B>>>(logger).use(
    botsApiAuth({
      authenticate: makeAuthenticateApiToken({ tokens: options.auth.tokens }),
      limiter: options.auth.limiter,
      logger,
    }),
  );
  if (options.idempotency)
    fn.use(idempotency({ ...options.idempotency, logger, scope: (event: BotsApiEvent) => event.auth.grant.projectId }));
  return readBody(fn, options);
}

/**
 * The send function: a custom token bound to one channel (401 ERR_NO_PERMISSION), then `Idempotency-Key` scoped to
 * the token's integration, then the body.
 */
export function customTokenFunction<B extends BodyReading = undefined>(
  options: PresetOptions<B> & { tokens: TokenStore },
): HttpHandler<CustomTokenEvent<BodyOf<B>>> {
  const { logger } = options;
  const fn = httpFunction<CustomTokenEvent<BodyOf<B>>>(logger).use(
    customTokenAuth({ authenticate: makeAuthenticateCustomToken({ tokens: options.tokens }), logger }),
  );
  if (options.idempotency) {
    // Custom tokens open one endpoint, send: its keys have been scoped `send:<integrationId>` from the start.
    const scope = (event: CustomTokenEvent) => `send:${event.auth.integrationId}`;
    fn.use(idempotency({ ...options.idempotency, logger, scope }));
  }
  return readBody(fn, options);
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
  idempotency: IdempotencySettings;
}): HttpHandler<HttpEvent> {
  const dispatch = createRouter(options.prefix, options.routes, {
    idempotency: idempotency({ ...options.idempotency, logger: options.logger, scope: () => 'admin' }),
  });
  return httpFunction(options.logger)
    .use(adminAuth(options.adminKey))
    .handler((event: HttpEvent, context: Context) => dispatch(event, context));
}

function readBody<TEvent extends HttpEvent>(
  fn: HttpHandler<TEvent>,
  options: { body?: BodyReading; unknownFieldMessages?: UnknownFieldMessages },
): HttpHandler<TEvent> {
  if (options.body === undefined) return fn;
  fn.use(jsonBody());
  if (options.body !== 'json') fn.use(validateBody(options.body, options.unknownFieldMessages));
  return fn;
}
