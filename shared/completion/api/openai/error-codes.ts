/**
 * The contract's error codes (§3) in OpenAI's terms, for the OpenAI-format routes only (§12): the same statuses and
 * messages, OpenAI's `type`, and OpenAI's `code` where it has one for the same situation.
 */
export const OPENAI_ERRORS_BY_CODE: Record<string, { type: string; code: string; param?: string }> = {
  ERR_API_TOKEN_NOT_PROVIDED: { type: 'authentication_error', code: 'missing_api_key' },
  ERR_API_TOKEN_INVALID_FORMAT: { type: 'authentication_error', code: 'invalid_api_key' },
  ERR_API_TOKEN_INVALID: { type: 'authentication_error', code: 'invalid_api_key' },
  ERR_API_TOKEN_AUTHENTICATION_FAILED: { type: 'authentication_error', code: 'authentication_failed' },
  ERR_PUBLIC_AI_RATE_LIMIT: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  ERR_NO_BOT_CREDITS: { type: 'insufficient_quota', code: 'insufficient_quota' },
  BOT_FORBIDDEN: { type: 'permission_error', code: 'model_forbidden', param: 'model' },
  BOT_NOT_FOUND: { type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
  PAYLOAD_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  INVALID_JSON: { type: 'invalid_request_error', code: 'invalid_json' },
  VALIDATION_ERROR: { type: 'invalid_request_error', code: 'invalid_value' },
  GENERATION_FAILED: { type: 'api_error', code: 'generation_failed' },
  GATEWAY_TIMEOUT: { type: 'timeout_error', code: 'timeout' },
};

/** The OpenAI `code` a contract code is sent as (documentation). */
export const openAiCodeFor = (code: string): string =>
  OPENAI_ERRORS_BY_CODE[code]?.code ?? (code === 'INTERNAL_ERROR' ? 'internal_error' : code.toLowerCase());
