import { afterAll, describe, expect, it } from 'vitest';
import { sandboxedMailParser } from '#functions/_wiring/untrusted-mail.ts';
import { sandboxedPdfOpener } from '#functions/_wiring/untrusted-pdf.ts';
import { ThreadSandbox } from '#shared/kernel/adapters/thread-sandbox.ts';
import { extractPdfPages, OcrEngineError, PdfTooLargeError } from '#shared/pdf/index.ts';
import { pdfBomb } from '#test/support/pdf-bombs.ts';
import { scannedPdf, textPdf } from '#test/support/pdf-fixtures.ts';

/**
 * `UNTRUSTED_PARSING=thread` (the local runner): PDFs and mail parsed in the sandbox worker the functions use
 * (functions/_wiring/untrusted-tasks.ts), answering what in-process parsing answers; a worker's overrun becomes the
 * caller's answer for a file over a limit.
 */
const bootstrap = new URL('../../local/thread-bootstrap.mjs', import.meta.url);
const entry = new URL('../../functions/_wiring/untrusted-tasks.ts', import.meta.url);
const sandboxes: ThreadSandbox[] = [];
function sandbox(memoryMb = 512): ThreadSandbox {
  const made = new ThreadSandbox({ bootstrap, entry, memoryMb, maxWorkers: 2 });
  sandboxes.push(made);
  return made;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});
// PDFs and mail in the same sandbox, as the functions have them: its warm worker serves both (each start loads
// the parsers, most of a second of CPU).
const parsing = sandbox();

describe('PDFs read in the parsing sandbox', () => {
  const open = sandboxedPdfOpener(parsing, 512);

  it('reads an ordinary PDF as in-process reading does', async () => {
    const file = await textPdf(['Lido numa thread à parte', 'Segunda página']);
    const pdf = await open(file);
    try {
      expect(pdf.pageCount).toBe(2);
      expect((await pdf.extract()).pages).toEqual((await extractPdfPages(file)).pages);
    } finally {
      await pdf.close();
    }
  }, 60_000);

  it('refuses the Brotli bomb with the decode bound’s error, typed again on this side', async () => {
    const error = await extractPdfPages(await pdfBomb('brotli').make(), {}, open).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfTooLargeError);
    expect(error).toMatchObject({ limit: 'stream', decoding: true });
  }, 60_000);

  it('asks this thread’s OCR engine for pages that are pictures, and carries its failure back', async () => {
    const scan = await scannedPdf('A SCANNED PAGE');
    const engine = (recognize: () => Promise<{ text: string; confidence: number }>) => ({
      engine: { name: 'fake', concurrency: 1, recognize },
    });
    const { pages } = await extractPdfPages(
      scan,
      { ocr: engine(async () => ({ text: 'Read by the engine on the calling thread', confidence: 95 })) },
      open,
    );
    expect(pages).toEqual([{ page: 1, text: 'Read by the engine on the calling thread', ocr: true }]);
    const failure = await extractPdfPages(
      scan,
      {
        ocr: engine(async () => {
          throw new OcrEngineError('the engine is down');
        }),
      },
      open,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OcrEngineError);
    expect((failure as Error).message).toBe('the engine is down');
  }, 60_000);

  it('a worker out of heap is the file passing a limit: PdfTooLargeError (memory)', async () => {
    // The cross-reference bomb with the entry ceiling lifted: 100 M JavaScript objects against a 64 MB heap.
    const small = sandboxedPdfOpener(sandbox(64), 64);
    const bomb = await pdfBomb('xref-stream-entries').make();
    const error = await small(bomb, { limits: { maxXrefEntries: 1_000_000_000 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfTooLargeError);
    expect(error).toMatchObject({ limit: 'memory', decoding: true });
    expect((error as Error).message).toMatch(/more than 64 MB of memory/);
  }, 120_000);
});

describe('mail parsed in the parsing sandbox', () => {
  const mail = (body: string) =>
    Buffer.from(
      `From: Ana <ana@example.org>\r\nTo: support@inbound.example.com\r\nSubject: Pedido\r\nMessage-ID: <m-1@example.org>\r\n` +
        `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/html\r\n\r\n${body}\r\n--B--\r\n`,
    );

  it('parses as in-process parsing does: 320,000 "<" read as text in one pass', async () => {
    const parse = sandboxedMailParser(parsing);
    const started = performance.now();
    const message = await parse(mail('<'.repeat(320_000)), 'support@inbound.example.com');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(message).toMatchObject({ from: 'ana@example.org', providerMessageId: '<m-1@example.org>' });
    expect(message.text).toBe('<'.repeat(320_000));
    expect(message.truncated).toBeUndefined();
  }, 30_000);

  it('past its deadline the mail still arrives: its headers, no text, truncated', async () => {
    const parse = sandboxedMailParser(parsing, 1);
    const message = await parse(mail(`<p>${'x'.repeat(2_000_000)}</p>`), 'support@inbound.example.com');
    expect(message).toMatchObject({
      from: 'ana@example.org',
      providerMessageId: '<m-1@example.org>',
      text: '',
      truncated: true,
      email: { subject: 'Pedido', attachments: [] },
    });
  }, 30_000);
});
