import type { KnowledgeContentType } from '../knowledge-files.ts';
import { checkTimeBudget, type TimeBudget, TimeBudgetExceededError } from '../../kernel/time-budget.ts';
import { htmlToText } from './html.ts';
import { markdownToText } from './markdown.ts';

/** A document that cannot give text; `message` says why and is shown to the user as the file's `error`. */
export class UnreadableDocumentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnreadableDocumentError';
  }
}

/** The readable pages of a PDF, and how many came from OCR or were skipped as unreadable. */
export interface PdfText {
  pages: string[];
  ocrPages: number;
  skippedPages: number;
}

/**
 * Reads a PDF page by page (the extract area's `shared/pdf` module, OCR included; ../pdf-reader.ts). Throws for a
 * PDF that does not parse or is encrypted, {@link UnreadableDocumentError} when no page is readable, and rejects
 * with the signal's reason when `signal` aborts.
 */
export type PdfPageReader = (bytes: Uint8Array, options?: { signal?: AbortSignal }) => Promise<PdfText>;

/** A document's text; `ocrPages` for PDFs. */
export interface DocumentText {
  text: string;
  ocrPages?: number;
}

/** How a knowledge file's bytes become text: {@link extractDocumentText}, here or in a sandbox thread. */
export type DocumentReader = (
  bytes: Uint8Array,
  contentType: KnowledgeContentType,
  options?: { charset?: string; readPdf?: PdfPageReader; budget?: TimeBudget },
) => Promise<DocumentText>;

/**
 * The readable text of an uploaded knowledge file. Throws {@link UnreadableDocumentError} when there is none and
 * {@link TimeBudgetExceededError} when `budget` runs out.
 */
export async function extractDocumentText(
  bytes: Uint8Array,
  contentType: KnowledgeContentType,
  options: { charset?: string; readPdf?: PdfPageReader; budget?: TimeBudget } = {},
): Promise<DocumentText> {
  let text: string;
  if (contentType === 'application/pdf') {
    if (!options.readPdf)
      throw new UnreadableDocumentError('PDF knowledge files are not supported by this deployment yet.');
    let pdf: PdfText;
    try {
      pdf = await options.readPdf(bytes, options.budget ? { signal: options.budget.signal } : {});
    } catch (error) {
      if (error instanceof UnreadableDocumentError) throw error;
      if (options.budget?.signal.aborted) throw new TimeBudgetExceededError(options.budget.ms);
      const reason = error instanceof Error ? error.message : String(error);
      throw new UnreadableDocumentError(`The PDF could not be read (corrupt or encrypted): ${reason}`, {
        cause: error,
      });
    }
    text = pdf.pages.join('\n\n');
    if (!text.trim())
      throw new UnreadableDocumentError(
        'The PDF has no text layer (a scanned document?): no text could be read from it.',
      );
    return { text, ocrPages: pdf.ocrPages };
  }
  if (looksBinary(bytes))
    throw new UnreadableDocumentError(`The file is declared ${contentType} but holds binary data.`);
  text = decodeText(bytes, options.charset);
  checkTimeBudget(options.budget);
  if (contentType === 'text/html') text = htmlToText(text, options.budget);
  else if (contentType === 'text/markdown') text = markdownToText(text, options.budget);
  checkTimeBudget(options.budget);
  if (!text.trim()) throw new UnreadableDocumentError('The file has no readable text.');
  return { text };
}

/** NUL bytes in the first 8 KB (outside UTF-16, which has a BOM) mean binary data, not text. */
function looksBinary(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false;
  return bytes.subarray(0, 8192).includes(0);
}

/**
 * Decodes text bytes: a BOM or the declared charset decides; else strict UTF-8, falling back to Windows-1252
 * (the usual encoding of older Portuguese documents) when the bytes are not valid UTF-8.
 */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder('utf-8').decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  if (charset) {
    try {
      return new TextDecoder(charset.toLowerCase()).decode(bytes);
    } catch {
      // unknown label: fall through to detection
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
