import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DecodeBudget, DecodeLimitError } from './decode-budget.ts';
import { CorruptPdfError, EncryptedPdfError, NotPdfError, PdfError, PdfTooLargeError } from './errors.ts';
import { DEFAULT_PDF_LIMITS, type PdfLimits, TextAllowance } from './limits.ts';
import { OcrRun } from './page-ocr.ts';
import { countLetters, readable, tidy } from './page-text.ts';
import type { ExtractPdfOptions, OpenPdf, OpenPdfOptions, PdfOpener, PdfPage, PdfPages } from './pdf-page.ts';
import { inThreadWorker, loadPdfjs, pdfjsAssets } from './pdfjs.ts';
import { pictureCoverage } from './picture-coverage.ts';

/** `%PDF-` at byte 0: what the contract calls "a PDF by its first bytes". */
export function startsLikePdf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 5 &&
    bytes[0] === 0x25 &&
    bytes[1] === 0x50 &&
    bytes[2] === 0x44 &&
    bytes[3] === 0x46 &&
    bytes[4] === 0x2d
  );
}

/**
 * Reads a whole PDF: {@link openPdf}, then every page's text, then closes it. Pages with a text layer are read from
 * it; pages that are pictures of text are rendered and OCRed when `options.ocr` is given. Throws {@link NotPdfError},
 * {@link EncryptedPdfError} or {@link CorruptPdfError} for files that cannot be read, `PdfTooLargeError` for files
 * that expand beyond `options.limits`, {@link OcrEngineError} when the
 * OCR engine fails, and the signal's reason when aborted.
 */
export async function extractPdfPages(
  bytes: Uint8Array,
  options: ExtractPdfOptions & OpenPdfOptions = {},
  open: PdfOpener = openPdf,
): Promise<PdfPages> {
  const pdf = await open(bytes, { signal: options.signal, limits: options.limits });
  try {
    return await pdf.extract(options);
  } finally {
    await pdf.close();
  }
}

const EOF_MARKER = Buffer.from('%%EOF', 'latin1');
/** Readers accept trailing bytes after the last `%%EOF` as long as it is within the last KiB. */
const EOF_WINDOW = 1024;

/**
 * Parses a PDF's structure (header, cross-reference data, page count) without reading its pages. This is the check
 * the extract endpoint runs before it charges: everything that makes a file unreadable as a PDF fails here, and so
 * does decoding past a limit found while opening (object and cross-reference streams). The document's decode budget
 * (./decode-budget.ts) starts here and bounds every later read of it.
 */
export async function openPdf(bytes: Uint8Array, options: OpenPdfOptions = {}): Promise<OpenPdf> {
  if (!startsLikePdf(bytes)) throw new NotPdfError();
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(
    Math.max(0, bytes.byteLength - EOF_WINDOW),
  );
  if (tail.indexOf(EOF_MARKER) < 0)
    throw new CorruptPdfError('The PDF is truncated or damaged: it has no end-of-file marker.');
  options.signal?.throwIfAborted();
  const limits = { ...DEFAULT_PDF_LIMITS, ...options.limits };

  const pdfjs = await loadPdfjs();
  const { worker, dispose } = await inThreadWorker();
  const budget = new DecodeBudget(limits, options.signal);
  const task: PDFDocumentLoadingTask = budget.run(() =>
    pdfjs.getDocument({
      worker,
      // pdfjs may take ownership of the buffer it is given; it gets a copy so the caller's bytes stay usable.
      data: new Uint8Array(bytes),
      ...pdfjsAssets(),
      cMapPacked: true,
      disableFontFace: true,
      // Images declaring more than 40 megapixels (A4 at 600 DPI is 35) are skipped by pdfjs, not decoded; the decode
      // bound refuses smaller ones that decode past the image limit.
      maxImageSize: 40_000_000,
      useSystemFonts: false,
      enableXfa: false,
      verbosity: pdfjs.VerbosityLevel.ERRORS,
    }),
  );
  const close = async () => {
    await task.destroy().catch(() => undefined);
    dispose();
  };
  let doc: PDFDocumentProxy;
  try {
    doc = await budget.run(() => task.promise);
    budget.throwIfTripped();
  } catch (error) {
    await close();
    throw openError(error, budget, options.signal);
  }
  if (doc.numPages < 1) {
    await close();
    throw new CorruptPdfError('The PDF has no pages.');
  }
  return {
    pageCount: doc.numPages,
    extract: (extractOptions = {}) =>
      budget.run(async () => {
        try {
          return await extractOpen(doc, pdfjs.OPS, extractOptions, limits, budget);
        } catch (error) {
          throw readError(error, budget, extractOptions.signal ?? options.signal);
        }
      }),
    close,
  };
}

/**
 * Why opening failed: a refusal by the decode budget (even one pdfjs caught and replaced with its own error) is the
 * file passing a limit; the signal's abort stays the abort; a password is needed; anything else is a damaged file.
 */
function openError(error: unknown, budget: DecodeBudget, signal: AbortSignal | undefined): unknown {
  const refusal = budgetRefusal(error, budget);
  if (refusal) return refusal;
  if (signal?.aborted) return signal.reason;
  if (error instanceof PdfError) return error;
  if ((error as { name?: string } | undefined)?.name === 'PasswordException') return new EncryptedPdfError();
  return new CorruptPdfError('The PDF is damaged and could not be parsed.', { cause: error });
}

/**
 * Why reading pages failed: a refusal by the decode budget wins over what pdfjs made of it (often "damaged"), then an
 * abort; everything else is already typed by the reading code.
 */
function readError(error: unknown, budget: DecodeBudget, signal: AbortSignal | undefined): unknown {
  const refusal = budgetRefusal(error, budget);
  if (refusal) return refusal;
  // The budget throws the signal's reason inside pdfjs, which may wrap it: the abort stays the abort.
  return signal?.aborted ? signal.reason : error;
}

function budgetRefusal(error: unknown, budget: DecodeBudget): Error | undefined {
  const refusal = budget.tripped ?? (error instanceof DecodeLimitError ? error : undefined);
  if (!refusal) return undefined;
  // A decode outside any budget is this code's fault, not the file's: an internal error, never a 400.
  if (refusal.kind === 'unbounded') return refusal;
  return new PdfTooLargeError(refusal.kind, refusal.message, { cause: error });
}

const CLEANUP_EVERY_PAGES = 100;

/** Text layers with at least this many letters and digits are used as they are, without looking further. */
const RICH_TEXT_CHARS = 200;
/** Under this many letters and digits a page "has no usable text layer" when it also shows pictures. */
const SOME_TEXT_CHARS = 16;
/** Share of the page covered by images from which a page is treated as a scan even with a little text on it. */
const SCAN_COVERAGE = 0.5;
/** Share of the page covered by images (or this many path operations: text drawn as outlines) that may hold text. */
const PICTURE_COVERAGE = 0.05;
const OUTLINED_TEXT_PATHS = 300;

/**
 * Every page in order: 1. read its text layer (stopping at the text limits); 2. decide whether it is text, blank
 * or a picture of text; 3. a picture of text is rendered and OCRed in the background (at most the engine's
 * concurrency at once), the others are done. A page's final text is charged against the limits as it is recorded.
 */
async function extractOpen(
  doc: PDFDocumentProxy,
  ops: Record<string, number>,
  options: ExtractPdfOptions,
  limits: PdfLimits,
  budget: DecodeBudget,
): Promise<PdfPages> {
  const { signal, ocr } = options;
  const pages: PdfPage[] = new Array(doc.numPages);
  const allowance = new TextAllowance(limits);
  const record = (page: PdfPage) => {
    allowance.charge(page.page, page.text);
    pages[page.page - 1] = page;
  };
  const ocrRun = ocr ? new OcrRun(ocr, signal, record) : undefined;
  try {
    for (let number = 1; number <= doc.numPages; number++) {
      signal?.throwIfAborted();
      ocrRun?.throwIfFailed();
      // pdfjs carries on past errors it catches (a font that fails, an image it skips): the budget's first refusal
      // is checked after each step, so a refusal inside a font or an image still refuses the document.
      budget.startPage();
      const page = await loadPage(doc, number);
      try {
        budget.throwIfTripped();
        const text = await textLayer(page, number, allowance, signal);
        budget.throwIfTripped();
        const kind = await classifyPage(page, ops, number, text);
        budget.throwIfTripped();
        if (kind === 'text') record({ page: number, text, ocr: false });
        else if (kind === 'blank') record(readable(number, text, false, 'blank'));
        else if (!ocrRun) record(readable(number, text, false, 'needs-ocr'));
        else await ocrRun.start(page, number, text);
        budget.throwIfTripped();
      } finally {
        await releasePage(doc, page, number);
      }
    }
    await ocrRun?.finish();
    budget.throwIfTripped();
    signal?.throwIfAborted();
    return { pages };
  } catch (error) {
    await ocrRun?.stop(error);
    throw error;
  }
}

async function loadPage(doc: PDFDocumentProxy, number: number): Promise<PDFPageProxy> {
  try {
    return await doc.getPage(number);
  } catch (error) {
    throw new CorruptPdfError(`The PDF is damaged: page ${number} could not be read.`, { cause: error });
  }
}

async function releasePage(doc: PDFDocumentProxy, page: PDFPageProxy, number: number): Promise<void> {
  page.cleanup();
  // pdfjs keeps every page it has parsed, with its fonts and images: dropping the caches now and then bounds
  // the memory of a 25 MB, many-thousand-page file (and, with less to collect, makes it faster).
  if (number % CLEANUP_EVERY_PAGES === 0) await doc.cleanup();
}

/**
 * The page's text layer, read chunk by chunk: reading stops (and pdfjs stops evaluating the page) as soon as the
 * text is over the page limit or what is left of the document's, or the signal aborts.
 */
async function textLayer(
  page: PDFPageProxy,
  number: number,
  allowance: TextAllowance,
  signal: AbortSignal | undefined,
): Promise<string> {
  const reader = page.streamTextContent().getReader();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const chunk = await readTextChunk(reader, number);
      if (chunk.done) break;
      for (const item of chunk.value.items) {
        if (!('str' in item)) continue;
        text += item.str;
        bytes += item.str.length;
        if (item.hasEOL) text += '\n';
      }
      allowance.checkPartial(number, bytes);
      signal?.throwIfAborted();
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
  return tidy(text);
}

type TextChunkReader = ReadableStreamDefaultReader<Awaited<ReturnType<PDFPageProxy['getTextContent']>>>;

async function readTextChunk(reader: TextChunkReader, number: number) {
  try {
    return await reader.read();
  } catch (error) {
    throw new CorruptPdfError(`The PDF is damaged: the text of page ${number} could not be read.`, { cause: error });
  }
}

/**
 * `text`: the text layer is the page. `blank`: nothing readable and nothing that may hold text. `scan`: a picture
 * of text (images over much of the page, or text drawn as outlines) with little or no text layer.
 */
async function classifyPage(
  page: PDFPageProxy,
  ops: Record<string, number>,
  number: number,
  text: string,
): Promise<'text' | 'blank' | 'scan'> {
  const letters = countLetters(text, RICH_TEXT_CHARS);
  if (letters >= RICH_TEXT_CHARS) return 'text';
  const pictures = await pictureCoverage(page, ops, number);
  const mayHoldText = pictures.imageCoverage >= PICTURE_COVERAGE || pictures.paths >= OUTLINED_TEXT_PATHS;
  const needsOcr = letters < SOME_TEXT_CHARS ? mayHoldText : pictures.imageCoverage >= SCAN_COVERAGE;
  return needsOcr ? 'scan' : 'blank';
}
