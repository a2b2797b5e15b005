import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './decode-budget.ts';
import { PdfTooLargeError } from './errors.ts';

/**
 * How much a PDF may expand into. A 25 MB file can hold gigabytes once decoded (Flate and Brotli reach 1:1000 and
 * more) and megabytes of text drawn in an invisible font: without bounds one request grows the process by gigabytes
 * and answers more than Lambda can return (6 MB). The decode limits are enforced inside pdfjs's decoders
 * (./decode-bound.ts); the text limits while pages are read.
 */
export interface PdfLimits extends DecodeLimits {
  /** Text of the whole document, in bytes of its JSON encoding (5 MiB: the answer fits Lambda's 6 MB response). */
  maxTextBytes: number;
  /** Text of one page, in bytes of its JSON encoding (1 MiB: a dense page in a small font holds about 10 KB). */
  maxPageTextBytes: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = {
  ...DEFAULT_DECODE_LIMITS,
  maxTextBytes: 5 * 1024 * 1024,
  maxPageTextBytes: 1024 * 1024,
};

/** Bytes a page adds to the answer beyond its text (`{"page":1234,"text":"","ocr":false},` in `mode=pages`). */
const PAGE_ENVELOPE_BYTES = 48;

const MIB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MB`;

/**
 * The text a document may still produce: pages are charged as they are read; reading stops with
 * {@link PdfTooLargeError} as soon as a page or the whole exceeds its limit.
 */
export class TextAllowance {
  private used = 0;
  constructor(private readonly limits: PdfLimits) {}

  /** Stops a page being read once its text so far (`pageBytes`) is over the page limit or what is left of the total. */
  checkPartial(page: number, pageBytes: number): void {
    if (pageBytes > this.limits.maxPageTextBytes) throw this.pageTooLarge(page);
    if (this.used + pageBytes > this.limits.maxTextBytes) throw this.totalTooLarge(page);
  }

  /** Counts a page's final text. */
  charge(page: number, text: string): void {
    const bytes = jsonBytes(text);
    if (bytes > this.limits.maxPageTextBytes) throw this.pageTooLarge(page);
    this.used += bytes + PAGE_ENVELOPE_BYTES;
    if (this.used > this.limits.maxTextBytes) throw this.totalTooLarge(page);
  }

  private pageTooLarge(page: number): PdfTooLargeError {
    return new PdfTooLargeError(
      'page-text',
      `Page ${page} of the PDF holds more than ${mb(this.limits.maxPageTextBytes)} of text, more than any page can ` +
        'show legibly (text in an invisible font?); it was not read.',
    );
  }

  private totalTooLarge(page: number): PdfTooLargeError {
    return new PdfTooLargeError(
      'text',
      `The PDF holds more than ${mb(this.limits.maxTextBytes)} of text (reached at page ${page}); ` +
        'split it into smaller files.',
    );
  }
}

/** Bytes of `text` once UTF-8 and JSON-escaped (quotes, backslashes and control characters take two or more). */
export function jsonBytes(text: string): number {
  let bytes = Buffer.byteLength(text, 'utf8');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) bytes++;
    else if (c < 0x20) bytes += 5;
  }
  return bytes;
}
