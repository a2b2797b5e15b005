import { extractPdfPages, PdfError } from '../pdf/index.ts';
import { UnreadableDocumentError, type PdfPageReader } from './text/extract.ts';

/**
 * The PDF text layer reader for knowledge files: the same code, and the same size limits, as the extract endpoint
 * (`shared/pdf`). Pages without a text layer (scans) come back empty: knowledge ingestion does not OCR them.
 */
export const pdfPageReader: PdfPageReader = async (bytes, options = {}) => {
  try {
    const { pages } = await extractPdfPages(bytes, { signal: options.signal ?? AbortSignal.timeout(120_000) });
    return pages.map((p) => p.text);
  } catch (error) {
    if (error instanceof PdfError) throw new UnreadableDocumentError(error.message, { cause: error });
    throw error;
  }
};
