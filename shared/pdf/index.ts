/**
 * PDF text for the whole service (the extract endpoint and knowledge ingestion): text layers read with pdfjs,
 * pages that are pictures of text rendered and sent to an OCR engine, typed errors for files that cannot be read.
 */
export {
  extractPdfPages,
  openPdf,
  startsLikePdf,
  countLetters,
  type ExtractPdfOptions,
  type OcrOptions,
  type OpenPdf,
  type OpenPdfOptions,
  type PdfOpener,
  type PdfPage,
  type PdfPages,
  type UnreadableReason,
} from './extract-pages.ts';
export { describeUnreadable } from './describe-unreadable.ts';
export { CorruptPdfError, EncryptedPdfError, NotPdfError, PdfError, PdfTooLargeError } from './errors.ts';
export { DEFAULT_PDF_LIMITS, type PdfLimits } from './limits.ts';
export { OcrEngineError, type OcrEngine, type OcrText, type PageImage } from './ocr.ts';
export { pdfSettings } from './settings.ts';
export { ocrFromSettings } from './wiring.ts';
