import { copyFileSync, existsSync, mkdirSync, renameSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Worker as TesseractWorker } from 'tesseract.js';
import { OcrEngineError, type OcrEngine, type OcrText, type PageImage } from '../ocr.ts';

const require = createRequire(import.meta.url);

export interface TesseractOptions {
  /** Tesseract language codes, each shipped as an `@tesseract.js-data/<code>` package. Default Portuguese + English. */
  languages?: string[];
  /** Worker threads (pages recognized at once). Default 1. */
  workers?: number;
  /** Idle workers are ended after this long, so a quiet process gives their memory back. Default 15 s. */
  idleMs?: number;
  /** Folder holding `<code>.traineddata.gz` for every language; default: linked from the packages into the temp dir. */
  langPath?: string;
}

/**
 * OCR with tesseract.js (WebAssembly Tesseract in worker threads), fully offline: the language data comes from the
 * `@tesseract.js-data/*` packages (LSTM "best_int" models), never from a CDN, and nothing is cached anywhere
 * (`cacheMethod: 'none'`; the working directory is read-only on Lambda).
 *
 * Workers are created on first use (~0.7 s each: the models load) and kept for the next pages. A page whose deadline
 * passes has its worker ended (a running recognition cannot be stopped otherwise) and a fresh one takes its place.
 */
export class TesseractOcrEngine implements OcrEngine {
  readonly name = 'tesseract';
  readonly concurrency: number;
  private readonly languages: string[];
  private readonly idleMs: number;
  private readonly langPathOption?: string;
  private langPath?: string;
  private readonly idle: TesseractWorker[] = [];
  private readonly waiting: ((worker: TesseractWorker | undefined) => void)[] = [];
  private live = 0;
  private idleTimer?: NodeJS.Timeout;

  constructor(options: TesseractOptions = {}) {
    this.languages = options.languages ?? ['por', 'eng'];
    this.concurrency = Math.max(1, options.workers ?? 1);
    this.idleMs = options.idleMs ?? 15_000;
    this.langPathOption = options.langPath;
  }

  async recognize(image: PageImage, signal: AbortSignal): Promise<OcrText> {
    signal.throwIfAborted();
    const worker = await this.acquire(signal);
    const thread = threadOf(worker);
    thread?.ref();
    let abandoned = false;
    try {
      const job = worker.recognize(image.data, { user_defined_dpi: String(image.dpi) } as never, { text: true });
      const aborted = new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      job.catch(() => undefined);
      const result = await Promise.race([job, aborted]).catch((error: unknown) => {
        abandoned = true;
        throw signal.aborted
          ? signal.reason
          : new OcrEngineError(`tesseract failed on page ${image.page}`, { cause: error });
      });
      return { text: result.data.text ?? '', confidence: result.data.confidence ?? 0 };
    } finally {
      if (abandoned) {
        this.live--;
        void worker.terminate().catch(() => undefined);
        this.handOver(undefined);
      } else {
        thread?.unref();
        this.release(worker);
      }
    }
  }

  /** Ends every worker now (tests, shutdown). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const workers = this.idle.splice(0);
    this.live -= workers.length;
    await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
  }

  private async acquire(signal: AbortSignal): Promise<TesseractWorker> {
    const ready = this.idle.pop();
    if (ready) return ready;
    if (this.live < this.concurrency) {
      this.live++;
      try {
        return await this.createWorker();
      } catch (error) {
        this.live--;
        this.handOver(undefined);
        throw error instanceof OcrEngineError
          ? error
          : new OcrEngineError('tesseract could not start', { cause: error });
      }
    }
    const handed = await new Promise<TesseractWorker | undefined>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(take);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      const take = (worker: TesseractWorker | undefined) => {
        signal.removeEventListener('abort', onAbort);
        resolve(worker);
      };
      this.waiting.push(take);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return handed ?? this.acquire(signal);
  }

  /** A worker is free: to the next waiting page, else to the idle list. */
  private release(worker: TesseractWorker): void {
    if (this.waiting.length) {
      this.handOver(worker);
      return;
    }
    this.idle.push(worker);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  /** Wakes one waiting page with `worker`, or with nothing (a slot freed up: it creates its own). */
  private handOver(worker: TesseractWorker | undefined): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else if (worker) this.release(worker);
  }

  private async createWorker(): Promise<TesseractWorker> {
    const tesseract = (await import('tesseract.js')).default;
    const langPath = this.languageFolder();
    const worker = await tesseract.createWorker(this.languages.join('+'), tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: 'none',
      // Without a handler tesseract.js throws worker failures from a message listener, which ends the process.
      errorHandler: () => undefined,
    });
    threadOf(worker)?.unref();
    return worker;
  }

  /**
   * tesseract.js wants every language in one folder; the packages ship one each. The files are checked first (a
   * missing one kills the worker thread and with it the process), then linked (or copied) into one temp folder.
   */
  private languageFolder(): string {
    if (this.langPath) return this.langPath;
    if (this.langPathOption) {
      for (const code of this.languages) requireFile(join(this.langPathOption, `${code}.traineddata.gz`));
      this.langPath = this.langPathOption;
      return this.langPath;
    }
    const folder = join(tmpdir(), `switchboard-tessdata-${this.languages.join('-')}`);
    mkdirSync(folder, { recursive: true });
    for (const code of this.languages) {
      const source = languagePackageFile(code);
      const target = join(folder, `${code}.traineddata.gz`);
      if (existsSync(target) && statSync(target).size === statSync(source).size) continue;
      // Built beside the target and renamed over it: atomic, and never writes through an existing link.
      const temporary = `${target}.${process.pid}.${Date.now()}`;
      try {
        symlinkSync(source, temporary);
      } catch {
        copyFileSync(source, temporary);
      }
      renameSync(temporary, target);
      requireFile(target);
    }
    this.langPath = folder;
    return folder;
  }
}

function languagePackageFile(code: string): string {
  let root: string;
  try {
    root = dirname(require.resolve(`@tesseract.js-data/${code}`));
  } catch (cause) {
    throw new OcrEngineError(`tesseract language data for "${code}" is not installed (@tesseract.js-data/${code})`, {
      cause,
    });
  }
  return requireFile(join(root, '4.0.0_best_int', `${code}.traineddata.gz`));
}

function requireFile(path: string): string {
  if (!existsSync(path) || statSync(path).size === 0)
    throw new OcrEngineError(`tesseract language data missing: ${path}`);
  return path;
}

/** The worker thread behind a tesseract.js worker, so an idle one does not keep the process alive. */
function threadOf(worker: TesseractWorker): { ref(): void; unref(): void } | undefined {
  const thread = (worker as unknown as { worker?: { ref?: () => void; unref?: () => void } }).worker;
  return thread && typeof thread.ref === 'function' && typeof thread.unref === 'function'
    ? (thread as { ref(): void; unref(): void })
    : undefined;
}
