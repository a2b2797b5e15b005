/**
 * Extract: text out of a PDF for the Bots API (charged, refunded on failure), and upload slots for large files. The
 * only way into the area from outside it.
 */
export { ExtractionFailedError, ExtractionTimeoutError, FileTooLargeError, InvalidFileError } from './errors.ts';
export { extractPdfDocs } from './api/extract-route.ts';
export { extractUploadDocs } from './api/upload-route.ts';
export { extractResult, extractUpload } from './api/schemas.ts';
export { extractUploadStoreOnS3, wireExtract, wireExtractUploads } from './wiring.ts';
