import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * The API Gateway REST proxy event as our middlewares leave it for the handler: headers lower-cased, a request id,
 * the parsed body once a body middleware ran, and headers that every response (errors included) must carry.
 */
export interface HttpEvent<TBody = unknown, TAuth = unknown> extends APIGatewayProxyEvent {
  requestId: string;
  /** Lower-cased header names; multi-value headers joined with ", " as Node does. */
  normalizedHeaders: Record<string, string>;
  body: string | null;
  parsedBody: TBody;
  auth: TAuth;
  /** Added to the response, success or error (RateLimit-*, Idempotent-Replayed...). */
  responseHeaders: Record<string, string>;
  receivedAtMs: number;
  /**
   * Set when the request carries an `Idempotency-Key` and holds it: whose key, the key, and when it was first claimed
   * (a retry after a crash sees the first attempt's time), so what the request produces can be identified by it.
   */
  idempotency?: { scope: string; key: string; firstClaimedAt: number };
}

export type HttpResult = APIGatewayProxyResult;

/**
 * The largest answer a function may give: Lambda's response payload limit for a buffered invocation (6 MB), which
 * holds the whole proxy result (status, headers, and the body as an escaped string). Locally the same, so what
 * answers here answers on AWS.
 */
export const RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;
export type { APIGatewayProxyEvent, APIGatewayProxyResult, Context };

/** A JSON response. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

export function noContent(headers: Record<string, string> = {}): HttpResult {
  return { statusCode: 204, headers, body: '' };
}
