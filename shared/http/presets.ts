import type { MiddlewareObj, MiddyfiedHandler } from '@middy/core';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';
import type * as z from '../kernel/validation/zod.ts';
import { httpFunction, jsonBody, rawBody, validateBody, type UnknownFieldMessages } from './middleware.ts';
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
 * `Idempotency-Key` support (the idempotency area's middleware) with its store and lock already chosen, given whose
 * keys they are. Passed in rather than built here, so a function that takes no key bundles none of it.
 */
export type ScopedIdempotency = <TEvent extends HttpEvent>(
  scope: (event: TEvent) => string,
) => MiddlewareObj<TEvent, HttpResult>;

export interface PresetOptions<TBody> {
  logger: Logger;
  /** The function's metrics, published at the end of each invocation. */
  metrics?: InvocationMetrics;
  idempotency?: ScopedIdempotency;
  body?: BodyReading<TBody>;
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

export function readBody<TEvent extends HttpEvent>(
  fn: HttpHandler<TEvent>,
  body: BodyReading<unknown> | undefined,
): HttpHandler<TEvent> {
  return body ? fn.use(body.middlewares) : fn;
}
