import { DomainError, ValidationError } from '../kernel/domain-error.ts';

/** The file cannot be used: not a PDF, encrypted, corrupt, missing, or an upload the caller cannot use. */
export class InvalidFileError extends ValidationError {
  constructor(message: string, path = 'file', code = 'invalid_file', cause?: unknown) {
    super(message, [{ path, message, code }], cause);
    this.name = 'InvalidFileError';
  }
}

/** The PDF is above 25 MB (decided while it streams in). */
export class FileTooLargeError extends DomainError {
  readonly code = 'FILE_TOO_LARGE';

  constructor(maxBytes: number) {
    super(`The PDF is larger than 25 MB (${maxBytes} bytes).`);
    this.name = 'FileTooLargeError';
  }
}

/** Nothing readable came out of the file (or OCR failed); the credit was refunded. */
export class ExtractionFailedError extends DomainError {
  readonly code = 'EXTRACTION_FAILED';

  constructor(reason: string, cause?: unknown) {
    super(`${reason} The credit was refunded.`, { cause });
    this.name = 'ExtractionFailedError';
  }
}

/** Extraction ran out of time (many scanned pages); stopped, and refunded if it was charged. */
export class ExtractionTimeoutError extends DomainError {
  readonly code = 'EXTRACTION_TIMEOUT';

  constructor(charged: boolean) {
    super(
      `The extraction did not finish within the time limit and was stopped${charged ? '; the credit was refunded' : ''}.`,
    );
    this.name = 'ExtractionTimeoutError';
  }
}
