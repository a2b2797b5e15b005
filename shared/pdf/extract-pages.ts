import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DecodeBudget, DecodeLimitError } from './decode-budget.ts';
import { CorruptPdfError, EncryptedPdfError, NotPdfError, PdfError, PdfTooLargeError } from './errors.ts';
import { DEFAULT_PDF_LIMITS, type PdfLimits, TextAllowance } from './limits.ts';
import type { OcrEngine, OcrText } from './ocr.ts';
import { OcrEngineError } from './ocr.ts';
import { inThreadWorker, loadPdfjs, pdfjsAssets } from './pdfjs.ts';
import { renderPage } from './render.ts';

/** One page of a PDF as text. `ocr` says the text came from OCR of the rendered page rather than its text layer. */
export interface PdfPage {
  /** 1-based. */
  page: number;
  text: string;
  ocr: boolean;
  /** Why nothing was read from this page, when nothing was. */
  unreadable?: UnreadableReason;
}

/**
 * - `blank`: nothing on the page (no text layer, nothing drawn but paper).
 * - `noise`: a picture of scattered dots (or a photo) with nothing OCR could take for text.
 * - `low-confidence`: OCR ran but was not confident it read words.
 * - `ocr-timeout`: OCR of the page did not finish within its time budget.
 * - `needs-ocr`: the page is a picture of text and no OCR engine was given.
 */
export type UnreadableReason = 'blank' | 'noise' | 'low-confidence' | 'ocr-timeout' | 'needs-ocr';

export interface PdfPages {
  pages: PdfPage[];
}

export interface OcrOptions {
  engine: OcrEngine;
  /** Resolution pages are rendered at for OCR. Default 200 DPI. */
  dpi?: number;
  /** Time budget for one page's OCR; past it the page is `ocr-timeout`. Default 60 s. */
  pageTimeoutMs?: number;
  /** Mean word confidence (0-100) under which OCR output is treated as unreadable. Default 50. */
  minConfidence?: number;
}

export interface ExtractPdfOptions {
  /** OCR for pages without a usable text layer; without it such pages come back empty with `needs-ocr`. */
  ocr?: OcrOptions;
  /** Aborts the extraction: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface OpenPdfOptions {
  /** Aborts opening: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Size limits for this file (stream limits checked when opening, text limits when reading); defaults for the rest. */
  limits?: Partial<PdfLimits>;
}

/**
 * How a PDF is opened: {@link openPdf} in this thread, or the same in a sandbox thread (the local runner's
 * `UNTRUSTED_PARSING=thread`, functions/_wiring/untrusted-parsing.ts).
 */
export type PdfOpener = (bytes: Uint8Array, options?: OpenPdfOptions) => Promise<OpenPdf>;

/** A PDF that parsed: its page count is known; its pages are read by {@link OpenPdf.extract}. */
export interface OpenPdf {
  readonly pageCount: number;
  extract(options?: ExtractPdfOptions): Promise<PdfPages>;
  close(): Promise<void>;
}

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

/**
 * OCR of the pages that are pictures of text, in the background while later pages are read. A failure is kept
 * and raised at the next page or at the end; on failure or abort the pages still in OCR are stopped, not waited for.
 */
class OcrRun {
  private readonly slots: Slots;
  private readonly pending: Promise<void>[] = [];
  private failure: unknown;
  private readonly stopper = new AbortController();
  private readonly signal: AbortSignal;

  constructor(
    private readonly ocr: OcrOptions,
    signal: AbortSignal | undefined,
    private readonly record: (page: PdfPage) => void,
  ) {
    this.slots = new Slots(Math.max(1, ocr.engine.concurrency ?? 1));
    this.signal = signal ? AbortSignal.any([signal, this.stopper.signal]) : this.stopper.signal;
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** Renders the page now (rendering tells specks from text) and recognises it in the background. */
  async start(page: PDFPageProxy, number: number, layerText: string): Promise<void> {
    await this.slots.acquire(this.signal);
    let rendered: Awaited<ReturnType<typeof renderPage>>;
    try {
      rendered = await renderPage(page, number, this.ocr.dpi ?? 200);
    } catch (error) {
      this.slots.release();
      throw error;
    }
    if (rendered.verdict !== 'text') {
      this.slots.release();
      this.record(readable(number, layerText, false, rendered.verdict));
      return;
    }
    this.pending.push(
      recognize(this.ocr, rendered.image, this.signal)
        .then((result) => this.record(pickRicher(number, layerText, result, this.ocr.minConfidence ?? 50)))
        .catch((error: unknown) => {
          this.failure ??= error;
        })
        .finally(() => this.slots.release()),
    );
  }

  async finish(): Promise<void> {
    await Promise.all(this.pending);
    this.throwIfFailed();
  }

  async stop(reason: unknown): Promise<void> {
    this.stopper.abort(reason);
    await Promise.allSettled(this.pending);
  }
}

/** Trailing spaces off every line, no control characters, at most one blank line in a row, NFC. */
export function tidy(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[^\P{Cc}\t\n\r]/gu, '') // control characters but tab and line breaks
    .replace(/\r\n?/g, '\n')
    .replace(/(?<![ \t\u00a0])[ \t\u00a0]+\n/g, '\n') // the look-behind: one try per run of spaces, not one per space
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;

/**
 * Letters and digits: what makes text "readable" (punctuation and spaces alone are not). Counting stops at `upTo`:
 * the hot path only needs to know whether a page has "enough" text, not how much.
 */
export function countLetters(text: string, upTo = Number.POSITIVE_INFINITY): number {
  const pattern = new RegExp(LETTER_OR_DIGIT);
  let count = 0;
  while (count < upTo && pattern.exec(text) !== null) count++;
  return count;
}

function readable(page: number, text: string, ocr: boolean, otherwise: UnreadableReason): PdfPage {
  return countLetters(text, 1) > 0 ? { page, text, ocr } : { page, text: '', ocr, unreadable: otherwise };
}

/** The OCR text unless the text layer says more (a cover photo with a typed title, say). */
function pickRicher(page: number, layerText: string, result: OcrText | 'timeout', minConfidence: number): PdfPage {
  const ocrText = result !== 'timeout' && result.confidence >= minConfidence ? tidy(result.text) : '';
  if (countLetters(ocrText) > 0 && countLetters(ocrText) >= countLetters(layerText))
    return { page, text: ocrText, ocr: true };
  if (countLetters(layerText) > 0) return { page, text: layerText, ocr: false };
  return { page, text: '', ocr: true, unreadable: result === 'timeout' ? 'ocr-timeout' : 'low-confidence' };
}

async function recognize(
  ocr: OcrOptions,
  image: Parameters<OcrEngine['recognize']>[0],
  signal: AbortSignal | undefined,
): Promise<OcrText | 'timeout'> {
  const pageDeadline = AbortSignal.timeout(ocr.pageTimeoutMs ?? 60_000);
  const combined = signal ? AbortSignal.any([signal, pageDeadline]) : pageDeadline;
  try {
    return await ocr.engine.recognize(image, combined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (pageDeadline.aborted) return 'timeout';
    if (error instanceof OcrEngineError) throw error;
    throw new OcrEngineError(`OCR of page ${image.page} failed.`, { cause: error });
  }
}

interface PictureCoverage {
  /** Share of the page area covered by images (0 to 1). */
  imageCoverage: number;
  /** Path construction operations (vector drawings, or text converted to outlines). */
  paths: number;
}

/** Walks the page's drawing operations, following the transformation matrix, to see how much of it is pictures. */
async function pictureCoverage(
  page: PDFPageProxy,
  ops: Record<string, number>,
  number: number,
): Promise<PictureCoverage> {
  let list: Awaited<ReturnType<PDFPageProxy['getOperatorList']>>;
  try {
    list = await page.getOperatorList();
  } catch (error) {
    throw new CorruptPdfError(`The PDF is damaged: the drawing of page ${number} could not be read.`, { cause: error });
  }
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const pageArea = Math.abs((x1 - x0) * (y1 - y0)) || 1;
  const imageOps = new Set(
    [
      'paintImageXObject',
      'paintInlineImageXObject',
      'paintImageMaskXObject',
      'paintImageXObjectRepeat',
      'paintImageMaskXObjectRepeat',
      'paintInlineImageXObjectGroup',
      'paintImageMaskXObjectGroup',
    ].map((name) => ops[name]),
  );
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  let imageArea = 0;
  let paths = 0;
  const images = new Set<string>();
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args?.[0])) ctm = multiply(ctm, args[0] as Matrix);
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === ops.constructPath) paths++;
    else if (imageOps.has(fn)) {
      imageArea += Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
      if (typeof args?.[0] === 'string') images.add(args[0]);
    }
  }
  await decodedImages(page, images);
  return { imageCoverage: Math.min(1, imageArea / pageArea), paths };
}

/**
 * pdfjs resolves `getOperatorList()` before the page's images are decoded, and goes on decoding them: waiting for
 * each image object (decoded, or dropped by pdfjs) makes a refusal by the decode budget land on this page, every
 * time, rather than after the document was answered. Pages that are pictures need the images next anyway.
 */
async function decodedImages(page: PDFPageProxy, ids: Set<string>): Promise<void> {
  if (!ids.size) return;
  const pools = page as unknown as Record<
    'objs' | 'commonObjs',
    { get(id: string, ok: () => void, failed: () => void): void }
  >;
  let timer: NodeJS.Timeout | undefined;
  // Never a reason to hang: pdfjs resolves every image it was asked to paint, but a page read goes on regardless.
  const patience = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, IMAGE_WAIT_MS);
  });
  await Promise.race([
    patience,
    Promise.all(
      [...ids].map(
        (id) =>
          new Promise<void>((resolve) =>
            (id.startsWith('g_') ? pools.commonObjs : pools.objs).get(id, resolve, resolve),
          ),
      ),
    ),
  ]);
  clearTimeout(timer);
}

const IMAGE_WAIT_MS = 15_000;

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

/** A counting semaphore: at most `size` pages rendered and waiting for or in OCR at once (bounds memory). */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
