import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { OcrEngineError, type OcrEngine, type OcrText } from './ocr.ts';
import { countLetters, readable, tidy } from './page-text.ts';
import type { OcrOptions, PdfPage } from './pdf-page.ts';
import { renderPage } from './render.ts';

/**
 * OCR of the pages that are pictures of text, in the background while later pages are read. A failure is kept
 * and raised at the next page or at the end; on failure or abort the pages still in OCR are stopped, not waited for.
 */
export class OcrRun {
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
