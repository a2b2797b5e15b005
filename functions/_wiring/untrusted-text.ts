import { SandboxLimitError, SandboxTaskError } from '#shared/kernel/adapters/thread-sandbox.ts';
import type { Config } from '#shared/kernel/config.ts';
import { TimeBudgetExceededError } from '#shared/kernel/time-budget.ts';
import { type DocumentReader, extractDocumentText, UnreadableDocumentError } from '#shared/knowledge/index.ts';
import { parsingSandbox } from './sandbox.ts';

/**
 * How this function reads knowledge files as text (./sandbox.ts): in-process, or HTML, Markdown and plain text in the
 * sandbox (PDFs go through `readPdf`, itself sandboxed, whose OCR engine stays here). Past the worker's heap or the
 * file's time budget the file is `failed` with the reason, never retried.
 */
export function documentReaderFromConfig(cfg: Config): DocumentReader {
  const sandbox = parsingSandbox(cfg);
  if (!sandbox) return extractDocumentText;
  const memoryMb = cfg.SANDBOX_MEMORY_MB;
  return async (bytes, contentType, options = {}) => {
    if (contentType === 'application/pdf') return extractDocumentText(bytes, contentType, options);
    const budget = options.budget;
    const budgetMs = budget ? Math.max(0, budget.deadline - budget.now()) : 120_000;
    const ms = budget?.ms ?? budgetMs;
    const data = new Uint8Array(bytes);
    try {
      return await sandbox.run(
        'document.text',
        { bytes: data, contentType, budgetMs, ...(options.charset ? { charset: options.charset } : {}) },
        { deadlineMs: budgetMs + 5_000, transfer: [data.buffer] },
      );
    } catch (error) {
      if (error instanceof SandboxLimitError && error.kind === 'memory')
        throw new UnreadableDocumentError(
          `Reading the file needed more than ${memoryMb} MB of memory and was stopped; split it into smaller files.`,
        );
      if (error instanceof SandboxLimitError && error.kind === 'time') throw new TimeBudgetExceededError(ms);
      if (error instanceof SandboxTaskError) {
        if (error.remoteName === 'UnreadableDocumentError') throw new UnreadableDocumentError(error.message);
        if (error.remoteName === 'TimeBudgetExceededError') throw new TimeBudgetExceededError(ms);
        throw new Error(`${error.remoteName}: ${error.message}`);
      }
      throw error;
    }
  };
}
