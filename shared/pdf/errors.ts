/**
 * Why a PDF could not be read. Callers map these to their own answers (the extract endpoint: 400 VALIDATION_ERROR;
 * knowledge ingestion: a failed document with the message). `message` is safe to show to the file's owner.
 */
export abstract class PdfError extends Error {
  abstract readonly reason: 'not-pdf' | 'encrypted' | 'corrupt';
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
