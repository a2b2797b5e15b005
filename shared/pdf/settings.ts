import { declareSettings, nonEmpty, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** OCR of the pages that are pictures of text (extract and knowledge ingestion read PDFs the same way). */
export const pdfSettings = declareSettings(
  {
    /** The engine: default `tesseract` locally, `textract` on AWS; `none` turns OCR off (such pages are unreadable). */
    OCR_ENGINE: z.optional(z.enum(['tesseract', 'textract', 'none'])),
    /** Pages OCRed at once: tesseract worker threads (default 1), or Textract calls in flight (default 8). */
    OCR_CONCURRENCY: z.optional(positiveInt(64)),
    /** Resolution pages are rendered at for OCR. */
    OCR_DPI: z._default(z.coerce.number().check(z.int(), z.gte(72), z.lte(600)), 200),
    /** Time budget of one page's OCR; past it the page counts as unreadable. */
    OCR_PAGE_TIMEOUT_MS: z._default(positiveInt(600_000), 60_000),
    /** Folder with `<lang>.traineddata.gz` for tesseract; default: the @tesseract.js-data packages. */
    TESSERACT_LANG_PATH: z.optional(nonEmpty()),
  },
  (raw, { local }) => ({ ...raw, ocrEngine: raw.OCR_ENGINE ?? (local ? 'tesseract' : 'textract') }),
);

export type PdfSettings = ReturnType<typeof pdfSettings.read>;
