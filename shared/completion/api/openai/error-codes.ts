import type { DomainErrorCode } from '../../../contract/error-codes.ts';

/** How an error reads in OpenAI's dialect: its `type`, its `code`, and the request field it is about. */
export interface OpenAiDialect {
  type: string;
  code: string;
  param?: string;
}

/**
 * Every domain error in OpenAI's terms, for the OpenAI-format routes only (docs/reference/errors.md): the status stays
 * the one the domain-error table gives (`shared/http/domain-errors.ts`), the body says it the way OpenAI's clients
 * expect. Keyed by domain code and complete, so a new domain error cannot reach these routes without a decision.
 */
export const OPENAI_DIALECT: { readonly [C in DomainErrorCode]: OpenAiDialect } = {
  NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  CHANNEL_NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  BOT_NOT_FOUND: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
  BOT_FORBIDDEN: { type: 'permission_error', code: 'model_forbidden', param: 'model' },
  FORBIDDEN: { type: 'permission_error', code: 'forbidden' },
  CONFLICT: { type: 'invalid_request_error', code: 'conflict' },
  INVALID_INPUT: { type: 'invalid_request_error', code: 'invalid_value' },
  NO_BOT_CREDITS: { type: 'insufficient_quota', code: 'insufficient_quota' },
  NO_CHANNEL_CREDITS: { type: 'insufficient_quota', code: 'insufficient_quota' },
  PROVIDER_FAILED: { type: 'api_error', code: 'provider_error' },
  GENERATION_FAILED: { type: 'api_error', code: 'generation_failed' },
  GENERATION_TIMEOUT: { type: 'timeout_error', code: 'timeout' },
  EXTRACTION_FAILED: { type: 'api_error', code: 'extraction_failed' },
  EXTRACTION_TIMEOUT: { type: 'timeout_error', code: 'timeout' },
  FILE_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  UPLOAD_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  INVALID_SIGNATURE: { type: 'authentication_error', code: 'invalid_signature' },
  MESSAGE_NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  RECIPIENT_OPTED_OUT: { type: 'invalid_request_error', code: 'recipient_opted_out' },
  WINDOW_CLOSED: { type: 'invalid_request_error', code: 'window_closed' },
  NOT_SCHEDULED: { type: 'invalid_request_error', code: 'not_scheduled' },
  UNSUPPORTED_MEDIA_TYPE: { type: 'invalid_request_error', code: 'unsupported_media_type' },
  TEMPORARILY_UNAVAILABLE: { type: 'server_error', code: 'service_unavailable' },
  RATE_LIMITED: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
};

/**
 * The errors the HTTP edge raises before any use case runs (auth, the rate limit, body parsing), by their
 * wire code, in OpenAI's terms.
 */
export const OPENAI_EDGE_DIALECT: Readonly<Record<string, OpenAiDialect>> = {
  ERR_API_TOKEN_NOT_PROVIDED: { type: 'authentication_error', code: 'missing_api_key' },
  ERR_API_TOKEN_INVALID_FORMAT: { type: 'authentication_error', code: 'invalid_api_key' },
  ERR_API_TOKEN_INVALID: { type: 'authentication_error', code: 'invalid_api_key' },
  ERR_API_TOKEN_AUTHENTICATION_FAILED: { type: 'authentication_error', code: 'authentication_failed' },
  ERR_PUBLIC_AI_RATE_LIMIT: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  SERVICE_UNAVAILABLE: { type: 'server_error', code: 'service_unavailable' },
  PAYLOAD_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  INVALID_JSON: { type: 'invalid_request_error', code: 'invalid_json' },
  VALIDATION_ERROR: { type: 'invalid_request_error', code: 'invalid_value' },
  NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  METHOD_NOT_ALLOWED: { type: 'invalid_request_error', code: 'method_not_allowed' },
};

/** The OpenAI `code` a contract wire code is sent as on these routes (the document lists them). */
export const openAiCodeFor = (wireCode: string): string => {
  const edge = OPENAI_EDGE_DIALECT[wireCode];
  if (edge) return edge.code;
  const byWire: Record<string, string> = {
    ERR_NO_BOT_CREDITS: OPENAI_DIALECT.NO_BOT_CREDITS.code,
    BOT_FORBIDDEN: OPENAI_DIALECT.BOT_FORBIDDEN.code,
    BOT_NOT_FOUND: OPENAI_DIALECT.BOT_NOT_FOUND.code,
    GENERATION_FAILED: OPENAI_DIALECT.GENERATION_FAILED.code,
    GATEWAY_TIMEOUT: OPENAI_DIALECT.GENERATION_TIMEOUT.code,
    INTERNAL_ERROR: 'internal_error',
  };
  return byWire[wireCode] ?? wireCode.toLowerCase();
};
