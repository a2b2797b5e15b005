import { HttpError } from '../http/errors.ts';

/** 400 VALIDATION_ERROR about the file: not a PDF, encrypted, corrupt, missing, or an upload the caller cannot use. */
export class InvalidFileError extends HttpError {
  constructor(message: string, path = 'file', code = 'invalid_file', cause?: unknown) {
    super(400, 'VALIDATION_ERROR', message, { details: [{ path, message, code }], cause });
    this.name = 'InvalidFileError';
  }
}

/** 400 FILE_TOO_LARGE: the PDF is above 25 MB (decided while it streams in). */
export class FileTooLargeError extends HttpError {
  constructor(maxBytes: number) {
    super(400, 'FILE_TOO_LARGE', `The PDF is larger than 25 MB (${maxBytes} bytes).`);
    this.name = 'FileTooLargeError';
  }
}

/** 402 ERR_NO_BOT_CREDITS: the month's bot credits are spent; nothing was charged. */
export class NoBotCreditsError extends HttpError {
  constructor() {
    super(402, 'ERR_NO_BOT_CREDITS', 'The project has no bot credits left this month; nothing was charged.');
    this.name = 'NoBotCreditsError';
  }
}

/** 502 EXTRACTION_FAILED: nothing readable came out of the file (or OCR failed); the credit was refunded. */
export class ExtractionFailedError extends HttpError {
  constructor(reason: string, cause?: unknown) {
    super(502, 'EXTRACTION_FAILED', `${reason} The credit was refunded.`, { cause });
    this.name = 'ExtractionFailedError';
  }
}

/** 504 GATEWAY_TIMEOUT: extraction ran out of time (many scanned pages); stopped, and refunded if it was charged. */
export class ExtractionTimeoutError extends HttpError {
  constructor(charged: boolean) {
    super(
      504,
      'GATEWAY_TIMEOUT',
      `The extraction did not finish within the time limit and was stopped${charged ? '; the credit was refunded' : ''}.`,
    );
    this.name = 'ExtractionTimeoutError';
  }
}
