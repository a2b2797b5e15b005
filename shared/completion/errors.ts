import { DomainError } from '../kernel/domain-error.ts';

/**
 * The model failed or its answer was unusable; the credit was refunded, unless `charged` (the model answered and the
 * answer broke the caller's own JSON Schema, or was already written to the caller).
 */
export class GenerationFailedError extends DomainError {
  readonly code = 'GENERATION_FAILED';
  /** The model answered, but not in the format asked for (not JSON, or not valid against the JSON Schema). */
  readonly invalidAnswer: boolean;

  constructor(
    reason: string,
    options: { retryAfterSeconds?: number; cause?: unknown; invalidAnswer?: boolean; charged?: boolean } = {},
  ) {
    const { invalidAnswer, charged, ...rest } = options;
    super(
      `Generation failed: ${reason} ${charged ? 'The model answered, so the credit is spent.' : 'The credit was refunded.'}`,
      rest,
    );
    this.name = 'GenerationFailedError';
    this.invalidAnswer = invalidAnswer === true;
  }
}

/** `timeoutMs` passed; the model call was aborted and the credit refunded. */
export class GenerationTimeoutError extends DomainError {
  readonly code = 'GENERATION_TIMEOUT';

  constructor(timeoutMs: number, cause?: unknown) {
    super(`Generation did not finish within timeoutMs (${timeoutMs} ms); it was stopped and the credit was refunded.`, {
      cause,
    });
    this.name = 'GenerationTimeoutError';
  }
}
