import { ThreadSandbox } from '#shared/kernel/adapters/thread-sandbox.ts';
import type { Config } from '#shared/kernel/config.ts';

/**
 * Where a function parses untrusted bytes: PDFs, mail, HTML and Markdown knowledge files.
 * - `inline` (AWS): in the function's own process; the Lambda's memory and timeout are the sandbox.
 * - `thread` (the local runner): in a worker thread with a heap ceiling (`SANDBOX_MEMORY_MB`) and a deadline, off the
 *   thread that serves every other function, so one tenant's file cannot stall another tenant's request.
 * What a sandbox overrun becomes is each caller's usual answer for a file over a limit (./untrusted-pdf.ts,
 * ./untrusted-mail.ts, ./untrusted-text.ts): the extract route 400 VALIDATION_ERROR (refunded), a knowledge file
 * `failed` with the reason, a mail its headers with `truncated: true`. One pool per thread, shared by its functions.
 */
export function parsingSandbox(cfg: Config): ThreadSandbox | undefined {
  if (cfg.untrustedParsing === 'inline') return undefined;
  sandbox ??= new ThreadSandbox({
    // The local runner's thread entry loads the project's TypeScript, then the entry module.
    bootstrap: new URL('../../local/thread-bootstrap.mjs', import.meta.url),
    entry: new URL('./untrusted-tasks.ts', import.meta.url),
    memoryMb: cfg.SANDBOX_MEMORY_MB,
    maxWorkers: cfg.SANDBOX_THREADS,
  });
  return sandbox;
}

let sandbox: ThreadSandbox | undefined;
