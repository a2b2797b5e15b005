import { describe, expect, it } from 'vitest';
import { makePdfPageReader, UnreadableDocumentError } from '#shared/knowledge/index.ts';
import { extractPdfPages, PdfTooLargeError } from '#shared/pdf/index.ts';
import { tidy } from '#shared/pdf/page-text.ts';
import { jsonBytes } from '#shared/pdf/limits.ts';
import { inflationBombPdf, invisibleTextPdf, textPdf } from '#test/support/pdf-fixtures.ts';

/**
 * What a PDF may expand into: the security review's 24 KB file (20 MB of text in a 0.01 pt font) came back as a
 * 20 MB answer and grew the process by ~460 MB; a content stream can decompress to gigabytes.
 */
async function rejection(promise: Promise<unknown>): Promise<PdfTooLargeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PdfTooLargeError);
  return error as PdfTooLargeError;
}

// The limits are what is checked here; the timeout only catches a hang. A test reads megabytes of text through pdfjs
// (seconds of CPU), which a loaded machine stretches past the default 30 s (44 s once, a full suite with a crash-ledger
// loop beside it).
describe('PDF size limits', { timeout: 120_000 }, () => {
  it('stops reading a page drawn with 12 MB of invisible text at the page limit (1 MB)', async () => {
    const bomb = await invisibleTextPdf(12_000_000);
    expect(bomb.length).toBeLessThan(100_000);
    const error = await rejection(extractPdfPages(bomb));
    expect(error.limit).toBe('page-text');
    expect(error.message).toMatch(/Page 1 of the PDF holds more than 1 MB of text/);
  });

  it('stops at the document limit (5 MB) when every page is under the page limit', async () => {
    const error = await rejection(extractPdfPages(await invisibleTextPdf(800_000, 8)));
    expect(error.limit).toBe('text');
    expect(error.message).toMatch(/more than 5 MB of text \(reached at page 7\)/);
  });

  it('refuses a content stream that decodes beyond 16 MB: a file limit, not a text one', async () => {
    const bomb = await inflationBombPdf(64 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1_000_000);
    const error = await rejection(extractPdfPages(bomb));
    expect(error.limit).toBe('stream');
    expect(error.decoding).toBe(true);
    expect(error.message).toMatch(/a stream that decodes to more than 16 MB/);
  });

  it('reads ordinary files as before, and the limits can be set per call', async () => {
    const file = await textPdf(['Uma página comum com texto.', 'Outra página.']);
    const { pages } = await extractPdfPages(file);
    expect(pages.map((p) => p.text)).toEqual(['Uma página comum com texto.', 'Outra página.']);
    const error = await rejection(extractPdfPages(file, { limits: { maxTextBytes: 60 } }));
    expect(error.limit).toBe('text');
  });

  it('counts text as its JSON answer does: UTF-8 bytes, escapes included', () => {
    expect(jsonBytes('abc')).toBe(3);
    expect(jsonBytes('ação')).toBe(6);
    expect(jsonBytes('"\\\n')).toBe(6);
    expect(jsonBytes('\u0001')).toBe(6);
    expect(jsonBytes('x'.repeat(1000))).toBe(Buffer.byteLength(JSON.stringify('x'.repeat(1000))) - 2);
  });

  it('knowledge ingestion gets the same limits: the file fails with the reason', async () => {
    const error = await makePdfPageReader()(await invisibleTextPdf(2_000_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnreadableDocumentError);
    expect((error as Error).message).toMatch(/more than 1 MB of text/);
  });

  it('tidies a text layer in linear time (long runs of spaces)', () => {
    const started = performance.now();
    expect(tidy(`a${' '.repeat(100_000)}b \nc`)).toBe(`a${' '.repeat(100_000)}b\nc`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
