import type { ErrorDetail } from './validation/issues.ts';

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
  /** The upload is of a kind this use case does not take. */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** A dependency (a queue, a store) refused the work for now; a retry may succeed. */
  | 'TEMPORARILY_UNAVAILABLE';

/**
 * An error a use case throws on purpose: a code from {@link DomainErrorCode} and a message fit for the caller.
 * `cause` keeps what went wrong underneath, for the log only.
 */
export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  /** The input's problems, all at once (validation errors). */
  readonly details?: ErrorDetail[];
  /** Whole seconds after which a retry may succeed, when the failure says so (a provider asking to slow down). */
  readonly retryAfterSeconds?: number;

  constructor(message: string, options: { cause?: unknown; details?: ErrorDetail[]; retryAfterSeconds?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.details !== undefined) this.details = options.details;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** What a {@link NotFoundError} was looking for. */
export type Findable = 'project' | 'channel' | 'integration' | 'bot' | 'delivery' | 'knowledge-file' | 'message';

/** The thing a request addresses does not exist (or belongs to another project, which reads the same). */
export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
  readonly what: Findable;

  constructor(what: Findable, message: string) {
    super(message);
    this.name = 'NotFoundError';
    this.what = what;
  }
}

/** The change collides with the current state (a second enabled general webhook) or with a concurrent change. */
export class ConflictError extends DomainError {
  readonly code = 'CONFLICT';

  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** The input breaks a rule; `details` names every problem at once. */
export class ValidationError extends DomainError {
  readonly code = 'INVALID_INPUT';

  constructor(message: string, details?: ErrorDetail[], cause?: unknown) {
    super(message, { ...(details === undefined ? {} : { details }), cause });
    this.name = 'ValidationError';
  }
}

/** A dependency refused the work for now (the ingest queue); the caller may try again. */
export class TemporarilyUnavailableError extends DomainError {
  readonly code = 'TEMPORARILY_UNAVAILABLE';

  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'TemporarilyUnavailableError';
  }
}

/** The project has no bot credits left this month; nothing was charged (completion and extract). */
export class NoBotCreditsError extends DomainError {
  readonly code = 'NO_BOT_CREDITS';

  constructor() {
    super('The project has no bot credits left this month; nothing was charged.');
    this.name = 'NoBotCreditsError';
  }
}
