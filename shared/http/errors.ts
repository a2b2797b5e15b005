import type { ErrorDetail } from '../kernel/validation/issues.ts';

/**
 * Errors that become the contract's error body: `{ success: false, error, message, details?, requestId }`.
 * An HttpError is thrown on purpose with a message fit for the caller, whatever its status: by the HTTP edge itself
 * (bad JSON, wrong method, authentication), or made from a use case's domain error by `domain-errors.ts`. Any other
 * error is hidden behind a generic 500 INTERNAL_ERROR; its cause goes to the log with the request id, never to the
 * caller.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly headers: Record<string, string>;
  /** Top-level fields of the error body beside the contract's five (`closedAt` of `WINDOW_CLOSED`). */
  readonly fields?: Readonly<Record<string, unknown>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      details?: ErrorDetail[];
      headers?: Record<string, string>;
      cause?: unknown;
      fields?: Readonly<Record<string, unknown>>;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
    if (options.fields !== undefined) this.fields = options.fields;
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new HttpError(400, 'VALIDATION_ERROR', message, { details });
