/**
 * The parsing sandbox's worker (`UNTRUSTED_PARSING=thread`, ./untrusted-parsing.ts): the same parsers the functions
 * run in-process on AWS, here on a thread of their own with a heap ceiling. One lease at a time per worker, so one
 * open document at most.
 */
import { serveSandbox } from '#shared/kernel/adapters/sandbox-worker.ts';
import { SandboxTaskError } from '#shared/kernel/adapters/thread-sandbox.ts';
import { startTimeBudget } from '#shared/kernel/time-budget.ts';
import { extractDocumentText, type KnowledgeContentType } from '#shared/knowledge/index.ts';
import { parseMail } from '#shared/messaging/index.ts';
import {
  OcrEngineError,
  type OcrText,
  type OpenPdf,
  type PageImage,
  openPdf,
  type PdfLimits,
} from '#shared/pdf/index.ts';

/** OCR settings as they cross threads; the engine stays with the caller, reached through `ocr` asks. */
export interface SandboxOcr {
  name: string;
  concurrency: number;
  dpi?: number;
  pageTimeoutMs?: number;
  minConfidence?: number;
}

let document: OpenPdf | undefined;

async function closeDocument(): Promise<void> {
  const open = document;
  document = undefined;
  await open?.close();
}

serveSandbox({
  async 'mail.parse'(input: { raw: Uint8Array; to: string }) {
    return parseMail(Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength), input.to);
  },

  async 'pdf.open'(input: { bytes: Uint8Array; limits?: Partial<PdfLimits> }) {
    await closeDocument();
    document = await openPdf(input.bytes, input.limits ? { limits: input.limits } : {});
    return { pageCount: document.pageCount };
  },

  async 'pdf.extract'(input: { ocr?: SandboxOcr }, context) {
    if (!document) throw new Error('no PDF is open in this sandbox');
    const ocr = input.ocr;
    const { pages } = await document.extract(
      ocr
        ? {
            ocr: {
              dpi: ocr.dpi,
              pageTimeoutMs: ocr.pageTimeoutMs,
              minConfidence: ocr.minConfidence,
              engine: {
                name: ocr.name,
                concurrency: ocr.concurrency,
                async recognize(image: PageImage, signal: AbortSignal): Promise<OcrText> {
                  signal.throwIfAborted();
                  const data = new Uint8Array(image.data);
                  const aborted = new Promise<never>((_, reject) =>
                    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
                  );
                  try {
                    return await Promise.race([
                      context.ask<OcrText>('ocr', { ...image, data }, [data.buffer]),
                      aborted,
                    ]);
                  } catch (error) {
                    // The engine's own failure keeps its message across the thread.
                    if (error instanceof SandboxTaskError && error.remoteName === 'OcrEngineError')
                      throw new OcrEngineError(error.message);
                    throw error;
                  }
                },
              },
            },
          }
        : {},
    );
    return pages;
  },

  async 'pdf.close'() {
    await closeDocument();
  },

  async 'document.text'(input: {
    bytes: Uint8Array;
    contentType: KnowledgeContentType;
    charset?: string;
    budgetMs: number;
  }) {
    return extractDocumentText(input.bytes, input.contentType, {
      ...(input.charset ? { charset: input.charset } : {}),
      budget: startTimeBudget(input.budgetMs),
    });
  },
});
