import type { PdfLimits } from './limits.ts';
import type { OcrEngine } from './ocr.ts';

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
