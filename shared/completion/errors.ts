import { DomainError } from '../kernel/domain-error.ts';

/** The model failed or its answer was unusable; the credit was refunded. */
export class GenerationFailedError extends DomainError {
  readonly code = 'GENERATION_FAILED';

  constructor(reason: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(`Generation failed: ${reason} The credit was refunded.`, options);
    this.name = 'GenerationFailedError';
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
