/** Extract: text out of a PDF for the Bots API (charged, refunded on failure), and browser uploads of large files. */
export { ExtractionFailedError, ExtractionTimeoutError, FileTooLargeError, InvalidFileError } from './errors.ts';
export {
  describeUnreadable,
  type ExtractInput,
  type ExtractLog,
  type ExtractPdfDeps,
  type ExtractSource,
  makeExtractPdf,
  MAX_PDF_BYTES,
} from './extract-pdf.ts';
export { type CreatedUpload, isProjectUploadKey, makeCreateUpload, uploadKey, type UploadStore } from './uploads.ts';
