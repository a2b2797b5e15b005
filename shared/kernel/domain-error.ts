import type { DomainErrorCode } from '../contract/error-codes.ts';
import type { ErrorDetail } from './validation/issues.ts';
import { isOverload, OVERLOAD_RETRY_AFTER_SECONDS } from './overload.ts';

/**
 * An error a use case throws on purpose: a code from the contract's `DomainErrorCode` and a message fit for the caller.
 * `cause` keeps what went wrong underneath, for the log only.
 */
export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  /** The input's problems, all at once (validation errors). */
  readonly details?: ErrorDetail[];
  /** Whole seconds after which a retry may succeed, when the failure says so (a provider asking to slow down). */
  readonly retryAfterSeconds?: number;
  /** Fields the contract puts at the top of this error's body (`closedAt` of `WINDOW_CLOSED`). */
  readonly fields?: Readonly<Record<string, unknown>>;

  constructor(
    message: string,
    options: {
      cause?: unknown;
      details?: ErrorDetail[];
      retryAfterSeconds?: number;
      fields?: Readonly<Record<string, unknown>>;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.details !== undefined) this.details = options.details;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.fields !== undefined) this.fields = options.fields;
  }
}

/** What a {@link NotFoundError} was looking for (`project`, `bot`, `delivery`...: the area's noun). */
export type Findable = string;

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

/**
 * A dependency refused the work for now (the ingest queue); the caller may try again, after `Retry-After` when the
 * dependency was throttling.
 */
export class TemporarilyUnavailableError extends DomainError {
  readonly code = 'TEMPORARILY_UNAVAILABLE';

  constructor(message: string, cause?: unknown) {
    super(message, { cause, ...(isOverload(cause) ? { retryAfterSeconds: OVERLOAD_RETRY_AFTER_SECONDS } : {}) });
    this.name = 'TemporarilyUnavailableError';
  }
}
