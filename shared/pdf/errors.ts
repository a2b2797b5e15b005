import type { DecodeLimitKind } from './decode-budget.ts';

/**
 * Why a PDF could not be read. Callers map these to their own answers (the extract endpoint: 400 VALIDATION_ERROR,
 * or 502 EXTRACTION_FAILED for text over its limit found after the charge;
 * knowledge ingestion: a failed document with the message). `message` is safe to show to the file's owner.
 */
export abstract class PdfError extends Error {
  abstract readonly reason: 'not-pdf' | 'encrypted' | 'corrupt' | 'too-large';
}

/** The bytes do not start with `%PDF-`. */
export class NotPdfError extends PdfError {
  readonly reason = 'not-pdf';
  constructor(message = 'The file is not a PDF: it does not start with "%PDF-".') {
    super(message);
    this.name = 'NotPdfError';
  }
}

/** The PDF needs a password to be opened. (Owner-password-only files open and are read.) */
export class EncryptedPdfError extends PdfError {
  readonly reason = 'encrypted';
  constructor(message = 'The PDF is encrypted with a password; send it without the password protection.') {
    super(message);
    this.name = 'EncryptedPdfError';
  }
}

/** The bytes start like a PDF but do not parse as one (truncated, damaged cross-reference data, no pages...). */
export class CorruptPdfError extends PdfError {
  readonly reason = 'corrupt';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CorruptPdfError';
  }
}

/**
 * The PDF expands beyond a limit of `PdfLimits`: its decoded content (a stream, an image, a page's decoding, the
 * document's, its objects, a filter whose output cannot be bounded, the time a page takes, the memory of the sandbox
 * reading it: {@link decoding} is true), or its text (found while pages are read).
 */
export class PdfTooLargeError extends PdfError {
  readonly reason = 'too-large';
  constructor(
    readonly limit: 'text' | 'page-text' | 'memory' | Exclude<DecodeLimitKind, 'unbounded'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PdfTooLargeError';
  }

  /** True when decoding the file passed a ceiling (the file is refused), false when its text did (too much to answer). */
  get decoding(): boolean {
    return this.limit !== 'text' && this.limit !== 'page-text';
  }
}
