/**
 * Every error code the API answers with and what it means (docs/reference/errors.md). The OpenAPI
 * document lists them in `components.schemas.ErrorCode` and under each operation's answers.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: 'The body, a parameter or a field is invalid; `details[]` has one entry per problem.',
  INVALID_JSON: 'The body is not valid JSON.',
  PAYLOAD_TOO_LARGE: 'The JSON body is above 10 MB (decided before it is parsed).',
  FILE_TOO_LARGE: 'The PDF is above 25 MB (decided while it streams).',
  UNSUPPORTED_MEDIA_TYPE: "The body's Content-Type is not one the route accepts.",
  NOT_FOUND: 'Unknown path, or an id that does not exist.',
  METHOD_NOT_ALLOWED: 'Known path, wrong method; the `Allow` header lists the right ones.',
  CONFLICT: 'The change conflicts with the current state (a second enabled general webhook, a concurrent change).',
  UNAUTHORIZED:
    'Management API: the admin key, project key (`sbm_…`) or portal session is missing, wrong, expired or revoked.',
  FORBIDDEN:
    "Management API: the project key's or portal session's role does not allow this (credits and limits are the operator's alone).",
  ERR_NO_PERMISSION: 'Send endpoint: the custom token is missing, malformed, rotated away or deleted.',
  CHANNEL_NOT_FOUND: "The channel was deleted after the token was created, or is not one of this project's.",
  INVALID_SIGNATURE:
    "Inbound addresses: the provider's signature (or Meta's verify token) is missing or wrong; nothing was recorded.",
  MESSAGE_NOT_FOUND: "No message with this id on the custom token's channel (unknown, expired or another channel's).",
  RECIPIENT_OPTED_OUT:
    'A recipient opted out of this channel (a keyword, a hard bounce); nothing was sent or charged. `details[]` names each.',
  WINDOW_CLOSED:
    "WhatsApp: the contact's last message is older than 24 h (or there is none), so only a `template` can be sent; " +
    '`closedAt` says when the window closed (null: never open). Nothing was sent or charged.',
  PROVIDER_ERROR:
    '402: no credits left on the channel (nothing charged); 502: the email, SMS or WhatsApp provider failed (the credit was refunded).',
  NOT_SCHEDULED:
    'The message is not (or no longer) scheduled: it was sent, failed or canceled, or was never scheduled; nothing changed.',
  GONE: 'The deprecated legacy endpoint; use `POST /api/integration/generic`.',
  IDEMPOTENCY_KEY_REUSED: 'The `Idempotency-Key` was used within 24 h with another body.',
  IDEMPOTENCY_IN_PROGRESS: 'The first request with this `Idempotency-Key` is still running.',
  ERR_API_TOKEN_NOT_PROVIDED: 'Bots API: no `Authorization` header.',
  ERR_API_TOKEN_INVALID_FORMAT: 'Bots API: not `Bearer <token>`, or the token does not have the `sbk_` shape.',
  ERR_API_TOKEN_INVALID: 'Bots API: the token is unknown or was revoked.',
  ERR_API_TOKEN_AUTHENTICATION_FAILED:
    'Bots API: the token could not be checked (token store unreachable or project gone).',
  ERR_PUBLIC_AI_RATE_LIMIT:
    'Bots API: more than 60 requests per minute for this token; `Retry-After` says when to retry.',
  RATE_LIMITED:
    "More requests than the project's `limits` (sends or reported events per second) or the custom token's own limit allow; nothing was done. `Retry-After` says when to retry.",
  ERR_NO_BOT_CREDITS: 'No bot credits left this month; nothing was charged.',
  BOT_FORBIDDEN: 'The `botId` belongs to another project; nothing was charged.',
  BOT_NOT_FOUND: 'The `botId` does not exist; nothing was charged.',
  GENERATION_FAILED: 'Generation failed (or its JSON could not be parsed); the credit was refunded.',
  EXTRACTION_FAILED:
    'Nothing readable came out of the PDF; the credit was refunded. Resending the same file does not help.',
  GATEWAY_TIMEOUT: 'The work did not finish in time (`timeoutMs`); the credit was refunded.',
  REQUEST_TIMEOUT:
    'The request itself did not arrive in time (headers unfinished after 15 s, or its body paused 15 s); nothing was done.',
  SERVICE_UNAVAILABLE:
    'The service is busy (a store or queue the route needs is throttling) or a dependency is not configured; nothing was done. Retry after `Retry-After` seconds.',
  INTERNAL_ERROR: 'Unexpected failure; the cause is logged with the request id, never returned.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Error codes by HTTP status. */
export type ErrorsByStatus = Partial<Record<number, readonly ErrorCode[]>>;

/** Merges error tables; codes of one status stay unique and in order. */
export function mergeErrors(...tables: ErrorsByStatus[]): ErrorsByStatus {
  const merged: Record<number, ErrorCode[]> = {};
  for (const table of tables) {
    for (const [status, codes] of Object.entries(table)) {
      const list = merged[Number(status)] ?? [];
      merged[Number(status)] = list;
      for (const code of codes ?? []) if (!list.includes(code)) list.push(code);
    }
  }
  return merged;
}

/**
 * Every rule a use case refuses a request by, in the domain's words. No HTTP here: `shared/http/domain-errors.ts`
 * gives each code its status and the contract's error code, so the same use case serves an HTTP route or a worker.
 */
export type DomainErrorCode =
  /** The thing a request addresses (project, channel, integration, bot, delivery, knowledge file) does not exist. */
  | 'NOT_FOUND'
  /** The channel a token, an integration or a reported event refers to does not exist in the project. */
  | 'CHANNEL_NOT_FOUND'
  /** The bot a Bots API request names does not exist. */
  | 'BOT_NOT_FOUND'
  /** The bot a Bots API request names belongs to another project. */
  | 'BOT_FORBIDDEN'
  /** The caller is known but its role does not allow the change (a project key, a portal session). */
  | 'FORBIDDEN'
  /** The change collides with the current state or with a concurrent change. */
  | 'CONFLICT'
  /** The input breaks a rule; `details` lists every problem. */
  | 'INVALID_INPUT'
  /** The project's bot credits for the month are spent; nothing was charged. */
  | 'NO_BOT_CREDITS'
  /** The channel's message credits are spent; nothing was charged. */
  | 'NO_CHANNEL_CREDITS'
  /** The channel's provider (Twilio, WhatsApp Cloud, SMTP...) failed to send; the credit was refunded. */
  | 'PROVIDER_FAILED'
  /** The model failed or its answer was unusable; the credit was refunded. */
  | 'GENERATION_FAILED'
  /** The generation ran out of the caller's time budget; it was stopped and the credit refunded. */
  | 'GENERATION_TIMEOUT'
  /** Nothing readable came out of the document; the credit was refunded. */
  | 'EXTRACTION_FAILED'
  /** The extraction ran out of time; it was stopped and, if charged, refunded. */
  | 'EXTRACTION_TIMEOUT'
  /** A PDF to extract is over its limit (decided while it streams in). */
  | 'FILE_TOO_LARGE'
  /** A knowledge file upload is over its limit. */
  | 'UPLOAD_TOO_LARGE'
  /** An inbound provider request's signature (or Meta's verify token) is missing or wrong; nothing was recorded. */
  | 'INVALID_SIGNATURE'
  /** The message a status request names is unknown, expired, or another channel's. */
  | 'MESSAGE_NOT_FOUND'
  /** A scheduled message's cancel or move, on a message no longer (or never) scheduled. */
  | 'NOT_SCHEDULED'
  /** A recipient of a send opted out of the channel; nothing was sent or charged. */
  | 'RECIPIENT_OPTED_OUT'
  /** A free-form WhatsApp message outside the contact's 24-hour window; nothing was sent or charged. */
  | 'WINDOW_CLOSED'
  /** The upload is of a kind this use case does not take. */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** A dependency (a queue, a store) refused the work for now; a retry may succeed. */
  | 'TEMPORARILY_UNAVAILABLE'
  /** More requests than the tenant's limit allows right now; nothing was done. */
  | 'RATE_LIMITED';
