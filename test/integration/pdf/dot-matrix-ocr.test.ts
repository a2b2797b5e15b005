import { afterAll, describe, expect, it } from 'vitest';
import { TesseractOcrEngine } from '#shared/pdf/adapters/tesseract-ocr.ts';
import { extractPdfPages } from '#shared/pdf/index.ts';
import { dotMatrixScanImage, mixedPdf } from '#test/support/pdf-fixtures.ts';

/** tesseract.js for real, through the path extract and knowledge ingestion share (render, prepare, recognize). */
const engine = new TesseractOcrEngine({ workers: 1, idleMs: 60_000 });
afterAll(() => engine.close());

const RECEIPT = ['INVOICE TOTAL 1,234.50', 'CASH PAYMENT RECEIVED'];

describe('OCR of dot-matrix print (receipts, old invoices)', () => {
  it('reads INVOICE TOTAL whether the dots touch or stand apart', async () => {
    const pdf = await mixedPdf([
      // Dots that touch: read as "INUOICE TOTAL" before the page was smoothed.
      { image: dotMatrixScanImage(RECEIPT, { pitch: 2.5, dot: 0.9 }) },
      // Dots a gap apart: nothing at all was read before.
      { image: dotMatrixScanImage(RECEIPT, { pitch: 4.5, dot: 0.6 }) },
    ]);
    const { pages } = await extractPdfPages(pdf, { ocr: { engine, pageTimeoutMs: 30_000 } });
    for (const page of pages) {
      expect(page, `page ${page.page}`).toMatchObject({ ocr: true });
      expect(page.text, `page ${page.page}`).toContain('INVOICE TOTAL');
      expect(page.text, `page ${page.page}`).toContain('CASH PAYMENT RECEIVED');
    }
  });

  it('reads INVOICE TOTAL in larger bitmap faces: square pixels, and round dots that touch', async () => {
    const pdf = await mixedPdf([
      // A bitmap face of square pixels, 11 pt caps: read as "INUDICE TOTAL", "CASH PAYMEMT" with the 1-pixel blur.
      { image: dotMatrixScanImage(RECEIPT, { pitch: 4.5, dot: 1, shape: 'square' }) },
      // Round dots that touch, 11 pt caps: read as "IHJOICE TOTAL", "CASH PRAYMEMT".
      { image: dotMatrixScanImage(RECEIPT, { pitch: 4.5, dot: 0.9 }) },
    ]);
    const { pages } = await extractPdfPages(pdf, { ocr: { engine, pageTimeoutMs: 30_000 } });
    for (const page of pages) {
      expect(page, `page ${page.page}`).toMatchObject({ ocr: true });
      expect(page.text, `page ${page.page}`).toContain('INVOICE TOTAL');
      expect(page.text, `page ${page.page}`).toContain('CASH PAYMENT RECEIVED');
    }
  });
});
