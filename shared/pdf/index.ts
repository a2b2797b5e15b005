/**
 * PDF text for the whole service (the extract endpoint and knowledge ingestion): text layers read with pdfjs,
 * pages that are pictures of text rendered and sent to an OCR engine, typed errors for files that cannot be read.
 */
export { extractPdfPages, openPdf, startsLikePdf } from './extract-pages.ts';
export { countLetters } from './page-text.ts';
export type { OcrOptions, OpenPdf, PdfOpener, PdfPage } from './pdf-page.ts';
export { describeUnreadable } from './describe-unreadable.ts';
export { CorruptPdfError, EncryptedPdfError, NotPdfError, PdfError, PdfTooLargeError } from './errors.ts';
export type { PdfLimits } from './limits.ts';
export { OcrEngineError, type OcrEngine, type OcrText, type PageImage } from './ocr.ts';
export { pdfSettings } from './settings.ts';
export { ocrFromSettings } from './wiring.ts';
// The benches' tools (bench/ocr*.ts, bench/lib/ocr-read.ts, bench/extract-rss-child.ts): a page read step by step.
export { TesseractOcrEngine } from './adapters/tesseract-ocr.ts';
export { DecodeBudget } from './decode-budget.ts';
export { inThreadWorker, loadPdfjs, pdfjsAssets } from './pdfjs.ts';
export { prepareForOcr } from './prepare.ts';
export { type RenderOptions, renderPage } from './render.ts';
