import { DomainError } from '../kernel/domain-error.ts';
import { isOverload, OVERLOAD_RETRY_AFTER_SECONDS } from '../kernel/overload.ts';
import type { DomainErrorCode } from '../contract/error-codes.ts';
import type { ErrorCode } from '../contract/error-codes.ts';
import { HttpError } from './errors.ts';

/** The contract's answer to one domain code: the status and the `error` code of the body. */
export interface HttpAnswer {
  status: number;
  code: ErrorCode;
}

/**
 * Every domain error's HTTP answer, in one place. Some domain codes share a contract code on
 * different statuses (402 and 502 PROVIDER_ERROR), and some contract codes serve several domain codes
 * (504 GATEWAY_TIMEOUT): the use cases say what happened, this table says how the contract spells it.
 */
export const HTTP_ANSWERS: { readonly [C in DomainErrorCode]: HttpAnswer } = {
  NOT_FOUND: { status: 404, code: 'NOT_FOUND' },
  CHANNEL_NOT_FOUND: { status: 404, code: 'CHANNEL_NOT_FOUND' },
  BOT_NOT_FOUND: { status: 404, code: 'BOT_NOT_FOUND' },
  BOT_FORBIDDEN: { status: 403, code: 'BOT_FORBIDDEN' },
  FORBIDDEN: { status: 403, code: 'FORBIDDEN' },
  CONFLICT: { status: 409, code: 'CONFLICT' },
  INVALID_INPUT: { status: 400, code: 'VALIDATION_ERROR' },
  NO_BOT_CREDITS: { status: 402, code: 'ERR_NO_BOT_CREDITS' },
  NO_CHANNEL_CREDITS: { status: 402, code: 'PROVIDER_ERROR' },
  PROVIDER_FAILED: { status: 502, code: 'PROVIDER_ERROR' },
  GENERATION_FAILED: { status: 502, code: 'GENERATION_FAILED' },
  GENERATION_TIMEOUT: { status: 504, code: 'GATEWAY_TIMEOUT' },
  EXTRACTION_FAILED: { status: 502, code: 'EXTRACTION_FAILED' },
  EXTRACTION_TIMEOUT: { status: 504, code: 'GATEWAY_TIMEOUT' },
  FILE_TOO_LARGE: { status: 400, code: 'FILE_TOO_LARGE' },
  UPLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
  INVALID_SIGNATURE: { status: 403, code: 'INVALID_SIGNATURE' },
  MESSAGE_NOT_FOUND: { status: 404, code: 'MESSAGE_NOT_FOUND' },
  NOT_SCHEDULED: { status: 409, code: 'NOT_SCHEDULED' },
  RECIPIENT_OPTED_OUT: { status: 409, code: 'RECIPIENT_OPTED_OUT' },
  WINDOW_CLOSED: { status: 409, code: 'WINDOW_CLOSED' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  TEMPORARILY_UNAVAILABLE: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  RATE_LIMITED: { status: 429, code: 'RATE_LIMITED' },
};

/** A domain error as the HttpError the contract answers with: its message, `details` and `Retry-After` kept. */
export function httpErrorFor(error: DomainError): HttpError {
  const answer = HTTP_ANSWERS[error.code];
  return new HttpError(answer.status, answer.code, error.message, {
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(error.retryAfterSeconds) } }),
    ...(error.fields === undefined ? {} : { fields: error.fields }),
    cause: error.cause,
  });
}

/**
 * A store or queue that throttled the request's read or write, or could not take it: 503 with `Retry-After`. Nothing
 * the request would have done was recorded as done, so the caller retries.
 */
export function overloadHttpError(cause: unknown): HttpError {
  return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The service is busy right now; retry after a moment.', {
    headers: { 'Retry-After': String(OVERLOAD_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/**
 * What the error middleware answers with: a domain error becomes its HttpError; an overload (a throttled store or
 * queue, however an adapter wrapped it) becomes 503; an HttpError, or anything else (a hidden 500), passes through
 * unchanged. A domain error keeps its own answer even when an overload caused it (a use case decided what it means).
 */
export function asHttpError(error: unknown): unknown {
  if (error instanceof DomainError) return httpErrorFor(error);
  if (!(error instanceof HttpError) && isOverload(error)) return overloadHttpError(error);
  return error;
}
