import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { orphanDecodes } from '#shared/pdf/decode-budget.ts';
import { extractPdfPages, openPdf, PdfTooLargeError } from '#shared/pdf/index.ts';
import { deflatedZeros, MARKER } from '#test/support/pdf-bomb-payloads.ts';
import { PDF_BOMBS, pageWithContent } from '#test/support/pdf-bombs.ts';
import { mixedPdf, textPdf } from '#test/support/pdf-fixtures.ts';
import { onePage, pdfStream, writePdf } from '#test/support/pdf-writer.ts';

/**
 * The decode bound (shared/pdf/decode-bound.ts) against every adversarial file known (test/support/pdf-bombs.ts):
 * each is refused with the limit it passed, quickly, and never read. Before the bound, a text scan for `/FlateDecode`
 * stood in front of pdfjs: the Brotli file took 65 s and 1.7 GB, the others were decoded in full.
 */
const REFUSED_BY: Record<string, string> = {
  brotli: 'stream',
  'flate-abbreviated': 'stream',
  'flate-name-escape': 'stream',
  'flate-indirect-filter': 'stream',
  'flate-padded-dict': 'stream',
  'chain-hex-flate': 'stream',
  'chain-flate-flate': 'stream',
  lzw: 'stream',
  runlength: 'stream',
  'predictor-columns': 'stream',
  'predictor-tiff-colors': 'stream',
  'operator-flood': 'objects',
  'contents-array-repeat': 'page',
  'form-fanout': 'page',
  'inline-image': 'image',
  'image-flate': 'image',
  'image-jpeg-frame': 'image',
  'image-jpx-size': 'image',
  'image-jbig2-page': 'image',
  'image-ccitt-size': 'image',
  'encrypted-flate': 'stream',
  'object-stream': 'stream',
  'xref-stream-entries': 'xref',
};

/** CPU time of `fn` (all threads of the process), and its outcome. */
async function timed(fn: () => Promise<unknown>): Promise<{ cpuMs: number; outcome: unknown }> {
  const before = process.cpuUsage();
  const outcome = await fn().then(
    (value) => value,
    (error: unknown) => error,
  );
  const cpu = process.cpuUsage(before);
  return { cpuMs: (cpu.user + cpu.system) / 1000, outcome };
}

describe('PDF decode bound: every adversarial file is refused where pdfjs decodes', () => {
  it('knows a limit for every bomb', () => {
    expect(PDF_BOMBS.map((b) => b.name).sort()).toEqual(Object.keys(REFUSED_BY).sort());
  });

  it.each(PDF_BOMBS.map((b) => [b.name, b] as const))('%s', async (name, bomb) => {
    const bytes = await bomb.make();
    expect(bytes.length).toBeLessThan(1_000_000);
    const { cpuMs, outcome } = await timed(() => extractPdfPages(new Uint8Array(bytes)));
    expect(outcome, bomb.description).toBeInstanceOf(PdfTooLargeError);
    const error = outcome as PdfTooLargeError;
    expect(error.limit).toBe(REFUSED_BY[name]);
    expect(error.decoding).toBe(true);
    expect(error.message).toMatch(/it was not read\.$/);
    // Measured at 0.02-1.2 s of CPU on a quiet machine (bench/history/2026-11-untrusted-input.md); unbounded, the same files take minutes.
    expect(cpuMs).toBeLessThan(6_000);
  });

  it('holds a content stream to the stream limit even when its dictionary claims to be a large image', async () => {
    const decoy =
      '/Filter /FlateDecode /Subtype /Image /Width 6000 /Height 6000 /ColorSpace /DeviceRGB /BitsPerComponent 8';
    const error = await extractPdfPages(pageWithContent(decoy, await deflatedZeros(32 * 1024 * 1024))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PdfTooLargeError);
    expect((error as PdfTooLargeError).limit).toBe('stream');
  });

  it('refuses a filter pdfjs does not know (it would have passed the bytes through as they are)', async () => {
    const error = await extractPdfPages(pageWithContent('/Filter /Foo', Buffer.from(MARKER, 'latin1'))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PdfTooLargeError);
    expect((error as PdfTooLargeError).limit).toBe('filter');
    expect((error as Error).message).toMatch(/the filter \/Foo, which is not supported/);
  });

  it('refuses a bomb pdfjs would have swallowed: an embedded font file that inflates past the limit', async () => {
    const font = pdfStream('/Filter /FlateDecode /Length1 100', await deflatedZeros(64 * 1024 * 1024, ''));
    const bytes = writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
      '<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [] /FontDescriptor 6 0 R >>',
      pdfStream('', Buffer.from('BT /F1 12 Tf 72 700 Td (Hello with a font) Tj ET', 'latin1')),
      '<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>',
      font,
    ]);
    const error = await extractPdfPages(bytes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfTooLargeError);
    expect((error as PdfTooLargeError).limit).toBe('stream');
  });

  it('keeps documents read at the same time apart: bombs refused, ordinary files read, nothing outside a budget', async () => {
    const orphansBefore = orphanDecodes.count;
    const [brotli, lzw] = await Promise.all([PDF_BOMBS[0]!.make(), PDF_BOMBS.find((b) => b.name === 'lzw')!.make()]);
    const ordinary = await textPdf(['Página um, lida ao lado de bombas.', 'Página dois.']);
    const results = await Promise.allSettled([
      extractPdfPages(brotli),
      extractPdfPages(ordinary),
      extractPdfPages(lzw),
      extractPdfPages(ordinary),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    for (const r of [results[1], results[3]])
      expect((r as PromiseFulfilledResult<{ pages: { text: string }[] }>).value.pages.map((p) => p.text)).toEqual([
        'Página um, lida ao lado de bombas.',
        'Página dois.',
      ]);
    expect(orphanDecodes.count).toBe(orphansBefore);
  });
});

describe('PDF decode bound: ordinary files read as before', () => {
  it('reads text, object streams and cross-reference streams (pdf-lib) and Flate content', async () => {
    const withObjectStreams = await textPdf(['Objetos comprimidos', 'Segunda página']);
    expect((await extractPdfPages(withObjectStreams)).pages.map((p) => p.text)).toEqual([
      'Objetos comprimidos',
      'Segunda página',
    ]);
    const flate = writePdf([
      ...onePage(),
      pdfStream('/Filter /FlateDecode', deflateSync(Buffer.from('BT /F1 12 Tf 72 700 Td (Deflated words) Tj ET'))),
    ]);
    expect((await extractPdfPages(flate)).pages[0]!.text).toBe('Deflated words');
    const brotli = writePdf([
      ...onePage(),
      pdfStream(
        '/Filter /BrotliDecode',
        (await import('node:zlib')).brotliCompressSync(Buffer.from('BT /F1 12 Tf 72 700 Td (Brotli words) Tj ET')),
      ),
    ]);
    expect((await extractPdfPages(brotli)).pages[0]!.text).toBe('Brotli words');
  });

  it('reads a page of text beside a page with an image (the image decoded within its limit)', async () => {
    const { pages } = await extractPdfPages(
      await mixedPdf([{ text: 'Typed words on page one' }, { scan: 'SCANNED', typed: 'Typed header' }]),
    );
    expect(pages.map((p) => p.text)).toEqual(['Typed words on page one', 'Typed header']);
  });

  it('opens a file whose decoding is refused only later: the page count is known before any charge', async () => {
    const pdf = await openPdf(await PDF_BOMBS[0]!.make());
    try {
      expect(pdf.pageCount).toBe(1);
      await expect(pdf.extract()).rejects.toBeInstanceOf(PdfTooLargeError);
    } finally {
      await pdf.close();
    }
  });
});
