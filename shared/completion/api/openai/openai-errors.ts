import type { MiddlewareObj } from '@middy/core';
import { CallerGone } from '../../generation-call.ts';
import { GenerationFailedError } from '../../errors.ts';
import type { Logger } from '../../../kernel/logger.ts';
import { ModelError } from '../../../models/index.ts';
import { OpenAiRequestError } from './request-errors.ts';
import { OPENAI_DIALECT, OPENAI_EDGE_DIALECT, type OpenAiDialect } from './error-codes.ts';
import { asHttpError } from '../../../http/domain-errors.ts';
import { DomainError } from '../../../kernel/domain-error.ts';
import { HttpError } from '../../../http/errors.ts';
import { resolveRequestId } from '../../../http/request-id.ts';
import { json, type HttpEvent, type HttpResult } from '../../../http/types.ts';

/** Detail codes that are OpenAI's own `code` values (a use case's 400 about one parameter). */
const OPENAI_DETAIL_CODES = new Set(['unsupported_parameter', 'invalid_value', 'context_length_exceeded']);

/** OpenAI's error body: what every OpenAI client parses (the SDKs raise their typed errors from the status). */
export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** An error as OpenAI's body with its status and headers (`Retry-After` when the error carries one). */
export function toOpenAiError(failure: unknown): {
  status: number;
  error: OpenAiError;
  headers: Record<string, string>;
} {
  // The same statuses as every other route (the domain-error table); the body in OpenAI's dialect, by domain code.
  // An answer that is not valid against the caller's JSON Schema (after one retry): OpenAI's `server_error`.
  const dialect: OpenAiDialect | undefined =
    failure instanceof GenerationFailedError && failure.invalidAnswer
      ? { type: 'server_error', code: 'server_error' }
      : failure instanceof DomainError
        ? OPENAI_DIALECT[failure.code]
        : undefined;
  const error = asHttpError(failure);
  if (error instanceof OpenAiRequestError) {
    return {
      status: 400,
      error: { message: error.message, type: 'invalid_request_error', param: error.param, code: error.code },
      headers: {},
    };
  }
  if (error instanceof HttpError) {
    // The model said the conversation does not fit its context window: the caller's request, not our failure.
    if (error.cause instanceof ModelError && error.cause.kind === 'too-long') {
      return {
        status: 400,
        error: {
          message: `${error.cause.message} Nothing was charged.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
        headers: {},
      };
    }
    const known = dialect ?? OPENAI_EDGE_DIALECT[error.code];
    // A use case's refusal of one parameter (the bot's provider does not take it) names it, in OpenAI's words.
    const detail = error.details?.[0];
    const detailCode = detail && OPENAI_DETAIL_CODES.has(detail.code) ? detail.code : undefined;
    return {
      status: error.status,
      error: {
        message: error.message,
        type: known?.type ?? (error.status < 500 ? 'invalid_request_error' : 'api_error'),
        param: known?.param ?? detail?.path ?? null,
        code: detailCode ?? known?.code ?? error.code.toLowerCase(),
      },
      // The openai SDK retries 5xx twice unless told not to: a failed generation was refunded, a retry is the
      // caller's choice (every retry is a new charge). A 503 (the service busy) charged nothing: the SDK's retry
      // after `Retry-After` is what it asks for.
      headers:
        error.status >= 500 && error.status !== 503 ? { ...error.headers, 'x-should-retry': 'false' } : error.headers,
    };
  }
  return {
    status: 500,
    error: { message: 'An unexpected error occurred.', type: 'api_error', param: null, code: 'internal_error' },
    headers: { 'x-should-retry': 'false' },
  };
}

/**
 * Error answers in OpenAI's body for the OpenAI-format routes. Use it right after `httpConventions` (its `onError`
 * then runs first and answers): the same request id, the same RateLimit-* headers, the same log lines.
 */
export function openAiErrors(logger: Logger): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    name: 'openAiErrors',
    onError: (request) => {
      const event = request.event;
      const requestId = event.requestId ?? resolveRequestId(undefined);
      const failure = asHttpError(request.error);
      // The raw error: its domain code picks the dialect (a 404 for a bot is `model_not_found`, not `not_found`).
      const mapped = toOpenAiError(request.error);
      if (failure instanceof CallerGone) logger.info('caller went away before the answer was complete');
      else if (!(failure instanceof HttpError) && !(failure instanceof OpenAiRequestError))
        logger.error('unexpected failure', { cause: describe(failure) });
      else if (mapped.status >= 500)
        logger.warn('request failed', {
          status: mapped.status,
          code: mapped.error.code,
          cause: describe((failure as Error | undefined)?.cause),
        });
      return json(
        mapped.status,
        { error: mapped.error },
        { ...(event.responseHeaders ?? {}), ...mapped.headers, 'x-request-id': requestId },
      );
    },
  };
}

function describe(cause: unknown): unknown {
  if (cause instanceof Error) return { name: cause.name, message: cause.message, stack: cause.stack };
  return cause;
}
