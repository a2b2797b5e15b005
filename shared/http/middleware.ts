import middy, { type MiddlewareObj } from '@middy/core';
import type * as z from '../kernel/validation/zod.ts';
import { asHttpError } from './domain-errors.ts';
import { HttpError } from './errors.ts';
import { isWellFormedRequestId, resolveRequestId } from './request-id.ts';
import { json, type APIGatewayProxyEvent, type Context, type HttpEvent, type HttpResult } from './types.ts';
import { JsonShapeError, parseBoundedJson } from '../kernel/json-shape.ts';
import type { Logger } from '../kernel/logger.ts';
import type { InvocationMetrics } from '../kernel/metrics.ts';
import { observeInvocation } from './invocation.ts';
import { zodIssuesToDetails, type UnknownFieldMessages } from '../kernel/validation/issues.ts';

export type { UnknownFieldMessages } from '../kernel/validation/issues.ts';

/** The contract's JSON body limit: 10 MB, decided before the body is parsed. */
export const JSON_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

type Mw = MiddlewareObj<HttpEvent, HttpResult>;

/**
 * One middleware stack for every HTTP function: request id, lower-cased headers, the contract's error body for every
 * error, hidden 5xx causes, and the headers every response carries. Use it first so it wraps everything else.
 */
export function httpConventions(logger: Logger): Mw {
  return {
    name: 'httpConventions',
    before: (request) => {
      const event = request.event;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(event.headers ?? {})) {
        if (value !== undefined) headers[name.toLowerCase()] = value;
      }
      for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
        if (values && values.length > 1) headers[name.toLowerCase()] = values.join(', ');
      }
      event.normalizedHeaders = headers;
      const callerRequestId = headers['x-request-id'];
      const apiGatewayRequestId = event.requestContext?.requestId;
      event.requestId = resolveRequestId(callerRequestId, apiGatewayRequestId);
      event.responseHeaders = {};
      event.receivedAtMs = Date.now();
      // Separate keys: API Gateway's id is ours to trust; the caller's is whatever they sent (kept when it has the
      // contract's shape, so it cannot forge log structure), and `requestId` is the one the response carries.
      logger.appendKeys({
        requestId: event.requestId,
        apiGatewayRequestId,
        callerRequestId:
          callerRequestId === undefined || !isWellFormedRequestId(callerRequestId) ? undefined : callerRequestId,
      });
    },
    after: (request) => {
      const response = request.response;
      if (!response) return;
      logAnswered(logger, request.event, response.statusCode);
      response.headers = {
        ...request.event.responseHeaders,
        ...response.headers,
        'x-request-id': request.event.requestId,
      };
    },
    onError: (request) => {
      const event = request.event;
      const requestId = event.requestId ?? resolveRequestId(undefined);
      const error = asHttpError(request.error);
      let response: HttpResult;
      if (error instanceof HttpError) {
        if (error.status >= 500)
          logger.warn('request failed', { status: error.status, code: error.code, cause: describeCause(error.cause) });
        response = errorResponse(error, requestId, { ...(event.responseHeaders ?? {}), ...error.headers });
      } else {
        logger.error('unexpected failure', { cause: describeCause(error) });
        response = errorResponse(
          new HttpError(500, 'INTERNAL_ERROR', 'An unexpected error occurred.'),
          requestId,
          event.responseHeaders ?? {},
        );
      }
      request.response = response;
      logAnswered(logger, event, response.statusCode);
    },
  };
}

/** One line per request at INFO: what was asked (the route, never the path with its ids), the status, the time. */
function logAnswered(logger: Logger, event: HttpEvent, status: number): void {
  logger.info('request answered', {
    route: `${event.httpMethod} ${event.resource ?? ''}`,
    status,
    latencyMs: event.receivedAtMs === undefined ? undefined : Date.now() - event.receivedAtMs,
  });
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof Error) return { name: cause.name, message: cause.message, stack: cause.stack };
  return cause;
}

export function errorResponse(error: HttpError, requestId: string, headers: Record<string, string> = {}): HttpResult {
  const body: Record<string, unknown> = { success: false, error: error.code, message: error.message };
  if (error.details) body.details = error.details;
  for (const [name, value] of Object.entries(error.fields ?? {}))
    if (!(name in body) && name !== 'requestId') body[name] = value;
  body.requestId = requestId;
  return json(error.status, body, { ...headers, 'x-request-id': requestId });
}

/** Raw body bytes of an API Gateway event (base64 when API Gateway treated it as binary). */
export function bodyBytes(event: APIGatewayProxyEvent): Buffer {
  if (event.body == null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * The request's query as decoded name/value pairs, each name's values in the order sent. A REST proxy event carries
 * no raw query string: API Gateway decodes it (`%20` and `+` alike become a space) and groups values by name.
 */
export function queryPairs(event: APIGatewayProxyEvent): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) pairs.push([name, value]);
  return pairs;
}

function bodyByteLength(event: APIGatewayProxyEvent): number {
  const body = event.body;
  if (body == null) return 0;
  if (!event.isBase64Encoded) return Buffer.byteLength(body, 'utf8');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
}

/**
 * Parses a JSON object body: 413 PAYLOAD_TOO_LARGE over the limit (measured before parsing), 400 VALIDATION_ERROR when
 * it nests deeper than 64 levels or holds more than 100,000 objects and arrays (checked before parsing:
 * ../kernel/json-shape.ts), 400 INVALID_JSON when it does not parse, 400 VALIDATION_ERROR when the top level is not
 * an object.
 */
export function parseJsonObjectBody(
  event: APIGatewayProxyEvent,
  limitBytes = JSON_BODY_LIMIT_BYTES,
): Record<string, unknown> {
  if (bodyByteLength(event) > limitBytes) {
    throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `The JSON body is larger than ${limitBytes} bytes.`);
  }
  const text = event.isBase64Encoded ? bodyBytes(event).toString('utf8') : (event.body ?? '');
  let parsed: unknown;
  try {
    parsed = parseBoundedJson(text);
  } catch (error) {
    // Valid JSON past a shape ceiling: a validation error, as for any other field over its limit.
    if (error instanceof JsonShapeError)
      throw new HttpError(400, 'VALIDATION_ERROR', error.message, {
        details: [{ path: '', message: error.message, code: 'too_big' }],
      });
    throw new HttpError(400, 'INVALID_JSON', 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'The request body must be a JSON object.', {
      details: [{ path: '', message: 'Expected a JSON object', code: 'invalid_type' }],
    });
  }
  return parsed as Record<string, unknown>;
}

/** Middleware form of {@link parseJsonObjectBody}: the handler finds the object in `event.parsedBody`. */
export function jsonBody(limitBytes = JSON_BODY_LIMIT_BYTES): Mw {
  return {
    name: 'jsonBody',
    before: (request) => {
      request.event.parsedBody = parseJsonObjectBody(request.event, limitBytes);
    },
  };
}

/**
 * The body as bytes, exactly as sent (a provider's signature covers them), in `event.parsedBody`: 413
 * PAYLOAD_TOO_LARGE over the limit, measured before anything is decoded.
 */
export function rawBody(limitBytes: number): Mw {
  return {
    name: 'rawBody',
    before: (request) => {
      if (bodyByteLength(request.event) > limitBytes)
        throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes} bytes.`);
      request.event.parsedBody = bodyBytes(request.event);
    },
  };
}

/** Validates a value with a zod schema, or throws 400 VALIDATION_ERROR listing every problem at once. */
export function validate<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  unknownFieldMessages?: UnknownFieldMessages,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(400, 'VALIDATION_ERROR', 'The request is invalid.', {
    details: zodIssuesToDetails(result.error.issues, unknownFieldMessages),
  });
}

/** Validates the parsed body against a (strict) zod schema; the handler then sees the typed value. */
export function validateBody<S extends z.ZodMiniType>(schema: S, unknownFieldMessages?: UnknownFieldMessages): Mw {
  return {
    name: 'validateBody',
    before: (request) => {
      request.event.parsedBody = validate(schema, request.event.parsedBody, unknownFieldMessages);
    },
  };
}

/**
 * A middy handler with the HTTP conventions already applied, for an event of type `TEvent` (what the middlewares
 * added after it leave on the event). The presets in `presets.ts` add auth and body; `.handler(...)` comes last.
 */
export function httpFunction<TEvent extends HttpEvent = HttpEvent>(logger: Logger, metrics?: InvocationMetrics) {
  return middy<TEvent, HttpResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(observeInvocation(logger, metrics))
    .use(httpConventions(logger));
}
