/**
 * The OCR port: recognizes the text of one rendered page. Implemented by tesseract.js (local, offline) and Amazon
 * Textract (AWS) in `shared/adapters/`. The PDF module decides which pages need it and what counts as readable.
 */
export interface PageImage {
  /** 1-based page number, for logs and error messages. */
  page: number;
  data: Buffer;
  format: 'png' | 'jpeg';
  width: number;
  height: number;
  dpi: number;
}

export interface OcrText {
  /** Lines separated by `\n`, paragraphs by a blank line. */
  text: string;
  /** Mean word confidence, 0 to 100 (0 when no words). */
  confidence: number;
}

export interface OcrEngine {
  readonly name: string;
  /** How many pages are worth sending at once (worker threads, or concurrent calls within a service quota). */
  readonly concurrency: number;
  /** Rejects with the signal's reason once `signal` aborts; any other rejection means the engine failed. */
  recognize(image: PageImage, signal: AbortSignal): Promise<OcrText>;
}

/** The OCR engine failed (not a timeout): the service refused, crashed, or its language data is missing. */
export class OcrEngineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OcrEngineError';
  }
}
