import { SandboxLimitError, SandboxTaskError, type ThreadSandbox } from '#shared/kernel/adapters/thread-sandbox.ts';
import type { Config } from '#shared/kernel/config.ts';
import {
  CorruptPdfError,
  EncryptedPdfError,
  NotPdfError,
  OcrEngineError,
  type OcrText,
  type OpenPdf,
  openPdf,
  type PageImage,
  type PdfOpener,
  type PdfPage,
  PdfTooLargeError,
} from '#shared/pdf/index.ts';
import { parsingSandbox } from './sandbox.ts';
import type { SandboxOcr } from './untrusted-tasks.ts';

/** Opening a PDF (cross-reference data, page count) never needs longer. */
const PDF_OPEN_DEADLINE_MS = 30_000;
/** Reading a PDF's pages: a 100-page scan through OCR (the knowledge budget, 480 s); callers' signals stop it sooner. */
const PDF_READ_DEADLINE_MS = 600_000;

/** How this function opens PDFs (./sandbox.ts): {@link openPdf} in-process, or {@link sandboxedPdfOpener}. */
export function pdfOpenerFromConfig(cfg: Config): PdfOpener {
  const sandbox = parsingSandbox(cfg);
  return sandbox ? sandboxedPdfOpener(sandbox, cfg.SANDBOX_MEMORY_MB) : openPdf;
}

/**
 * PDFs opened and read in `sandbox`: one worker held from open to close (the document stays there), the OCR engine
 * kept on this thread and asked for each page the worker renders. A worker out of heap or past its deadline is the
 * file passing a limit: `PdfTooLargeError` (400 on the extract route, a `failed` knowledge file).
 */
export function sandboxedPdfOpener(sandbox: ThreadSandbox, memoryMb: number): PdfOpener {
  const pdfError = (error: unknown): unknown => revivePdfError(error, memoryMb);
  return async function openInSandbox(bytes, options = {}): Promise<OpenPdf> {
    const lease = await sandbox.lease(options.signal);
    let pageCount: number;
    try {
      const data = new Uint8Array(bytes);
      ({ pageCount } = await lease.call<{ pageCount: number }>(
        'pdf.open',
        { bytes: data, ...(options.limits ? { limits: options.limits } : {}) },
        { deadlineMs: PDF_OPEN_DEADLINE_MS, signal: options.signal, transfer: [data.buffer] },
      ));
    } catch (error) {
      lease.release();
      throw pdfError(error);
    }
    let closed = false;
    return {
      pageCount,
      async extract(extractOptions = {}) {
        const { ocr, signal } = extractOptions;
        const settings: SandboxOcr | undefined = ocr && {
          name: ocr.engine.name,
          concurrency: ocr.engine.concurrency,
          ...(ocr.dpi === undefined ? {} : { dpi: ocr.dpi }),
          ...(ocr.pageTimeoutMs === undefined ? {} : { pageTimeoutMs: ocr.pageTimeoutMs }),
          ...(ocr.minConfidence === undefined ? {} : { minConfidence: ocr.minConfidence }),
        };
        try {
          const pages = await lease.call<PdfPage[]>(
            'pdf.extract',
            { ocr: settings },
            {
              deadlineMs: PDF_READ_DEADLINE_MS,
              signal,
              // The OCR engine stays on this thread (tesseract's own workers, or Textract's client).
              answer: async (_name, input) => {
                const image = input as Omit<PageImage, 'data'> & { data: Uint8Array };
                const data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
                const text: OcrText = await ocr!.engine.recognize(
                  { ...image, data },
                  signal ?? new AbortController().signal,
                );
                return { value: text };
              },
            },
          );
          return { pages };
        } catch (error) {
          throw pdfError(error);
        }
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await lease.call('pdf.close', {}, { deadlineMs: 10_000 });
        } catch {
          // A worker that fails to close is stopped when released.
        } finally {
          lease.release();
        }
      },
    };
  };
}

/** A PDF failure as it crossed the thread, typed again; a sandbox overrun is the file passing a limit. */
function revivePdfError(error: unknown, memoryMb: number): unknown {
  if (error instanceof SandboxLimitError) {
    if (error.kind === 'memory')
      return new PdfTooLargeError(
        'memory',
        `Reading the PDF needed more than ${memoryMb} MB of memory; it was not read.`,
        { cause: error },
      );
    if (error.kind === 'time')
      return new PdfTooLargeError('time', `Reading the PDF took too long; it was not read.`, { cause: error });
    return error;
  }
  if (!(error instanceof SandboxTaskError)) return error;
  const { remoteName, message, fields } = error;
  switch (remoteName) {
    case 'NotPdfError':
      return new NotPdfError(message);
    case 'EncryptedPdfError':
      return new EncryptedPdfError(message);
    case 'CorruptPdfError':
      return new CorruptPdfError(message);
    case 'PdfTooLargeError':
      return new PdfTooLargeError(fields.limit as PdfTooLargeError['limit'], message);
    case 'OcrEngineError':
      return new OcrEngineError(message);
    default:
      return new Error(`${remoteName}: ${message}`);
  }
}
