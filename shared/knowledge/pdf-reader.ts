import { describeUnreadable } from '../pdf/index.ts';
import {
  countLetters,
  extractPdfPages,
  OcrEngineError,
  openPdf,
  PdfError,
  type OcrOptions,
  type PdfOpener,
  type PdfPage,
} from '../pdf/index.ts';
import { UnreadableDocumentError, type PdfPageReader } from './text/extract.ts';

/** Time for reading one knowledge PDF, OCR included: a 100-page scan within the ingest worker's 600 s. */
export const PDF_READ_BUDGET_MS = 480_000;

/**
 * The PDF reader for knowledge files: the same code, size limits and OCR settings the extract endpoint uses
 * (`shared/pdf`, `ocrFromSettings`): text layers read, pages that are pictures of text rendered and OCRed with the
 * same page classification, engines and per-page time limit. Pages that stay unreadable are skipped and counted; a
 * file with none readable is unreadable, with the extract route's reason. Without `ocr`, scanned pages count as
 * unreadable (`needs-ocr`).
 *
 * `budgetMs` bounds the read on its own; the caller's `signal` (the file's time budget) aborts it too, and then the
 * signal's reason is what rejects.
 *
 * An OCR engine failure (Textract throttled past the SDK's adaptive retries, say) fails the file naming the cause:
 * the retries happened inside this invocation, and another receive of the job would meet the same quota.
 */
export function makePdfPageReader(
  ocr?: OcrOptions,
  budgetMs = PDF_READ_BUDGET_MS,
  open: PdfOpener = openPdf,
): PdfPageReader {
  return async (bytes, options = {}) => {
    let pages: PdfPage[];
    const budget = AbortSignal.timeout(budgetMs);
    const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
    try {
      ({ pages } = await extractPdfPages(bytes, { ...(ocr ? { ocr } : {}), signal }, open));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (budget.aborted && error === budget.reason)
        throw new UnreadableDocumentError(
          `Reading the PDF took longer than ${Math.round(budgetMs / 1000)} s (scanned pages are read by OCR one by one); split it into smaller files.`,
          { cause: error },
        );
      if (error instanceof PdfError) throw new UnreadableDocumentError(error.message, { cause: error });
      if (error instanceof OcrEngineError)
        throw new UnreadableDocumentError(
          `Text recognition (OCR) failed: ${error.message}. Upload the file again later.`,
          {
            cause: error,
          },
        );
      throw error;
    }
    const readable = pages.filter((p) => countLetters(p.text, 1) > 0);
    if (!readable.length) throw new UnreadableDocumentError(describeUnreadable(pages));
    return {
      pages: readable.map((p) => p.text),
      ocrPages: readable.filter((p) => p.ocr).length,
      skippedPages: pages.length - readable.length,
    };
  };
}
