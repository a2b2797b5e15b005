import { InboundChannelNotFoundError, InvalidSignatureError } from '../messaging/inbound/accept-inbound.ts';
import { HttpError } from './errors.ts';
import type { APIGatewayProxyEvent } from './types.ts';

/** The inbound use cases' errors as the contract's answers (§10); anything else stays a hidden 500. */
export function inboundHttpError(error: unknown): unknown {
  if (error instanceof InvalidSignatureError) return new HttpError(403, error.code, error.message);
  if (error instanceof InboundChannelNotFoundError) return new HttpError(404, error.code, error.message);
  return error;
}

/** A body over a provider's limit: refused before it is looked at (the gateway refuses it before buffering). */
export function refuseLargeBody(bytes: number, limit: number): void {
  if (bytes > limit) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes.`);
}

/** The request's path and query as the caller sent them (REST proxy events carry the query parsed). */
export function pathAndQuery(event: APIGatewayProxyEvent): string {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) query.append(name, value);
  const text = query.toString();
  return text ? `${event.path}?${text}` : event.path;
}
