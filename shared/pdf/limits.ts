import { constants, inflateSync } from 'node:zlib';
import { PdfTooLargeError } from './errors.ts';

/**
 * How much a PDF may expand into. A 25 MB file can hold gigabytes once decompressed (Flate reaches 1:1000) and
 * megabytes of text drawn in an invisible font: without bounds one request grows the process by hundreds of MB and
 * answers more than Lambda can return (6 MB).
 */
export interface PdfLimits {
  /** Text of the whole document, in bytes of its JSON encoding (5 MiB: the answer fits Lambda's 6 MB response). */
  maxTextBytes: number;
  /** Text of one page, in bytes of its JSON encoding (1 MiB: a dense page in a small font holds about 10 KB). */
  maxPageTextBytes: number;
  /** One decompressed Flate stream that is not an image (content streams, fonts, object streams): 32 MiB. */
  maxInflatedStreamBytes: number;
  /** One decompressed Flate image (40 megapixels of 4 bytes, pdfjs's `maxImageSize` below): 160 MiB. */
  maxInflatedImageBytes: number;
  /** All decompressed Flate streams of the file together: 1 GiB. */
  maxInflatedTotalBytes: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = {
  maxTextBytes: 5 * 1024 * 1024,
  maxPageTextBytes: 1024 * 1024,
  maxInflatedStreamBytes: 32 * 1024 * 1024,
  maxInflatedImageBytes: 160 * 1024 * 1024,
  maxInflatedTotalBytes: 1024 * 1024 * 1024,
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

const STREAM_KEYWORD = Buffer.from('stream', 'latin1');
const END_STREAM = Buffer.from('endstream', 'latin1');
/** Inflating runs on the request's thread: it lets other work through this often. */
const YIELD_EVERY_BYTES = 16 * 1024 * 1024;
/** How far before `stream` the object's dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

/**
 * Refuses a PDF whose Flate streams decompress beyond the limits, before pdfjs is given it: pdfjs has no such
 * limit and decodes a whole stream into memory. Each `stream ... endstream` body whose dictionary names
 * `/FlateDecode` is inflated with a ceiling (the output is dropped); bodies that do not inflate (other filters,
 * encrypted files, damage) are left to pdfjs, so this is a bound on the common case, not a PDF parser.
 * Throws {@link PdfTooLargeError}; yields to the event loop every few MB inflated, and stops when `signal` aborts.
 */
export async function checkInflatedStreams(bytes: Uint8Array, limits: PdfLimits, signal?: AbortSignal): Promise<void> {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let sinceYield = 0;
  let at = file.indexOf(STREAM_KEYWORD);
  while (at >= 0) {
    if (sinceYield > YIELD_EVERY_BYTES) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    const bodyStart = afterEndOfLine(file, at + STREAM_KEYWORD.length);
    const isKeyword = bodyStart > 0 && !isEndStream(file, at);
    if (!isKeyword) {
      at = file.indexOf(STREAM_KEYWORD, at + STREAM_KEYWORD.length);
      continue;
    }
    let bodyEnd = file.indexOf(END_STREAM, bodyStart);
    if (bodyEnd < 0) bodyEnd = file.length;
    const dictionary = file.subarray(Math.max(0, at - DICTIONARY_WINDOW), at).toString('latin1');
    const own = dictionary.slice(dictionary.lastIndexOf('obj') + 1);
    if (/\/FlateDecode\b/.test(own)) {
      const image = /\/Subtype\s*\/Image\b/.test(own);
      const ceiling = image ? limits.maxInflatedImageBytes : limits.maxInflatedStreamBytes;
      const inflated = inflatedSize(file.subarray(bodyStart, bodyEnd), ceiling);
      if (inflated === 'over')
        throw new PdfTooLargeError(
          'stream',
          `The PDF holds a compressed ${image ? 'image' : 'stream'} that expands beyond ${mb(ceiling)}; it was not read.`,
        );
      total += inflated;
      sinceYield += inflated;
      if (total > limits.maxInflatedTotalBytes)
        throw new PdfTooLargeError(
          'stream',
          `The PDF's compressed streams expand beyond ${mb(limits.maxInflatedTotalBytes)} in all; it was not read.`,
        );
    }
    at = file.indexOf(STREAM_KEYWORD, bodyEnd + END_STREAM.length);
  }
}

/** Where a stream body starts: after `stream` and its end of line (CRLF or LF; a lone CR is tolerated). -1 if none. */
function afterEndOfLine(file: Buffer, at: number): number {
  if (file[at] === 0x0d) return file[at + 1] === 0x0a ? at + 2 : at + 1;
  if (file[at] === 0x0a) return at + 1;
  return -1;
}

function isEndStream(file: Buffer, at: number): boolean {
  return at >= 3 && file.toString('latin1', at - 3, at) === 'end';
}

/** Decompressed size of a zlib body, or `over` past `ceiling`; 0 when it does not inflate at all. */
function inflatedSize(body: Buffer, ceiling: number): number | 'over' {
  try {
    return inflateSync(body, { maxOutputLength: ceiling, finishFlush: constants.Z_SYNC_FLUSH }).length;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'over';
    return 0;
  }
}
