import { describe, expect, it } from 'vitest';
import {
  CorruptPdfError,
  EncryptedPdfError,
  extractPdfPages,
  NotPdfError,
  OcrEngineError,
  type OcrEngine,
  type OcrText,
  type PageImage,
} from '#shared/pdf/index.ts';
import {
  blankPdf,
  encryptedPdf,
  mixedPdf,
  noisePdf,
  scannedPdf,
  textPdf,
  truncatedPdf,
} from '#test/support/pdf-fixtures.ts';

/** An OCR engine double: answers what the test says, records the images it was given and how many ran at once. */
function fakeOcr(answer: (image: PageImage, signal: AbortSignal) => Promise<OcrText> | OcrText, concurrency = 1) {
  const seen: PageImage[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const engine: OcrEngine = {
    name: 'fake',
    concurrency,
    async recognize(image, signal) {
      seen.push(image);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await answer(image, signal);
      } finally {
        inFlight--;
      }
    },
  };
  return { engine, seen, maxInFlight: () => maxInFlight };
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

describe('extractPdfPages: text layers', () => {
  it('reads text pages without rendering or OCR', async () => {
    const ocr = fakeOcr(() => ({ text: 'never', confidence: 99 }));
    const { pages } = await extractPdfPages(await textPdf(['First page\nsecond line', 'Página dois: ação']), {
      ocr: { engine: ocr.engine },
    });
    expect(pages).toEqual([
      { page: 1, text: 'First page\nsecond line', ocr: false },
      { page: 2, text: 'Página dois: ação', ocr: false },
    ]);
    expect(ocr.seen).toHaveLength(0);
  });

  it('marks a blank page without rendering it', async () => {
    const ocr = fakeOcr(() => ({ text: 'never', confidence: 99 }));
    const { pages } = await extractPdfPages(await blankPdf(), { ocr: { engine: ocr.engine } });
    expect(pages).toEqual([{ page: 1, text: '', ocr: false, unreadable: 'blank' }]);
    expect(ocr.seen).toHaveLength(0);
  });

  it('leaves scanned pages empty with needs-ocr when no engine is given (the knowledge caller)', async () => {
    const { pages } = await extractPdfPages(await scannedPdf('Scanned words'));
    expect(pages).toEqual([{ page: 1, text: '', ocr: false, unreadable: 'needs-ocr' }]);
  });
});

describe('extractPdfPages: OCR', () => {
  it('renders a scanned page at 200 DPI and uses the OCR text', async () => {
    const ocr = fakeOcr(() => ({ text: '  Recognised words  \n\n\n\nnext paragraph ', confidence: 91 }));
    const { pages } = await extractPdfPages(await scannedPdf('Anything scanned here'), { ocr: { engine: ocr.engine } });
    expect(pages).toEqual([{ page: 1, text: 'Recognised words\n\nnext paragraph', ocr: true }]);
    expect(ocr.seen).toHaveLength(1);
    expect(ocr.seen[0]).toMatchObject({ page: 1, format: 'png', width: 1700, height: 2200, dpi: 200 });
    expect(ocr.seen[0]!.data.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('works page by page on a mixed PDF', async () => {
    const ocr = fakeOcr((image) => ({ text: `ocr of page ${image.page}`, confidence: 90 }));
    const pdf = await mixedPdf([
      { text: 'Typed page' },
      { scan: 'Second page scanned' },
      { blank: true },
      { scan: 'Fourth page scanned' },
    ]);
    const { pages } = await extractPdfPages(pdf, { ocr: { engine: ocr.engine } });
    expect(pages).toEqual([
      { page: 1, text: 'Typed page', ocr: false },
      { page: 2, text: 'ocr of page 2', ocr: true },
      { page: 3, text: '', ocr: false, unreadable: 'blank' },
      { page: 4, text: 'ocr of page 4', ocr: true },
    ]);
  });

  it('does not send noise to OCR', async () => {
    const ocr = fakeOcr(() => ({ text: 'never', confidence: 99 }));
    const { pages } = await extractPdfPages(await noisePdf(), { ocr: { engine: ocr.engine } });
    expect(pages).toEqual([{ page: 1, text: '', ocr: false, unreadable: 'noise' }]);
    expect(ocr.seen).toHaveLength(0);
  });

  it('treats low-confidence OCR as unreadable, and keeps a typed header when OCR finds nothing better', async () => {
    const ocr = fakeOcr(() => ({ text: 'fh AT SS CL IR', confidence: 17 }));
    const { pages } = await extractPdfPages(
      await mixedPdf([
        { scan: 'Some scanned words' },
        { scan: 'More scanned words', typed: 'Digitalizado por Scanner' },
      ]),
      { ocr: { engine: ocr.engine } },
    );
    expect(pages).toEqual([
      { page: 1, text: '', ocr: true, unreadable: 'low-confidence' },
      { page: 2, text: 'Digitalizado por Scanner', ocr: false },
    ]);
  });

  it('gives a page that overruns its OCR budget up as ocr-timeout and goes on', async () => {
    const ocr = fakeOcr((image, signal) =>
      image.page === 1 ? untilAborted(signal) : { text: 'fast page', confidence: 95 },
    );
    const { pages } = await extractPdfPages(
      await mixedPdf([{ scan: 'A slow page to read' }, { scan: 'A fast page to read' }]),
      { ocr: { engine: ocr.engine, pageTimeoutMs: 100 } },
    );
    expect(pages).toEqual([
      { page: 1, text: '', ocr: true, unreadable: 'ocr-timeout' },
      { page: 2, text: 'fast page', ocr: true },
    ]);
  });

  it('rejects with the caller signal reason when aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const ocr = fakeOcr((_, signal) => {
      setTimeout(() => controller.abort(reason), 10);
      return untilAborted(signal);
    });
    await expect(
      extractPdfPages(await scannedPdf('Some scanned words'), {
        ocr: { engine: ocr.engine },
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
  });

  it('fails with OcrEngineError when the engine fails', async () => {
    const ocr = fakeOcr(() => {
      throw new Error('service unavailable');
    });
    await expect(
      extractPdfPages(await scannedPdf('Some scanned words'), { ocr: { engine: ocr.engine } }),
    ).rejects.toBeInstanceOf(OcrEngineError);
  });

  it('keeps at most `concurrency` pages in OCR at once', async () => {
    // Each page's OCR finishes only once the next page has started (or after 5 s): with 2 slots they overlap.
    const started = new Map<number, () => void>();
    const startedPromise = new Map<number, Promise<void>>();
    for (let page = 1; page <= 5; page++)
      startedPromise.set(page, new Promise<void>((resolve) => started.set(page, resolve)));
    const ocr = fakeOcr(async (image) => {
      started.get(image.page)!();
      if (image.page < 4)
        await Promise.race([startedPromise.get(image.page + 1), new Promise((r) => setTimeout(r, 5_000))]);
      return { text: `page ${image.page}`, confidence: 90 };
    }, 2);
    const pdf = await mixedPdf(['one', 'two', 'three', 'four'].map((n) => ({ scan: `Scanned page number ${n}` })));
    const { pages } = await extractPdfPages(pdf, { ocr: { engine: ocr.engine } });
    expect(pages.map((p) => p.text)).toEqual(['page 1', 'page 2', 'page 3', 'page 4']);
    expect(ocr.maxInFlight()).toBe(2);
  });
});

describe('extractPdfPages: files that cannot be read', () => {
  it('throws typed errors', async () => {
    await expect(extractPdfPages(Buffer.from('hello'))).rejects.toBeInstanceOf(NotPdfError);
    await expect(extractPdfPages(await encryptedPdf())).rejects.toBeInstanceOf(EncryptedPdfError);
    await expect(extractPdfPages(await truncatedPdf())).rejects.toBeInstanceOf(CorruptPdfError);
    await expect(extractPdfPages(Buffer.from('%PDF-1.4\nnot a pdf\n%%EOF'))).rejects.toBeInstanceOf(CorruptPdfError);
  });

  it('leaves the caller bytes usable', async () => {
    const bytes = await textPdf(['Reusable']);
    await extractPdfPages(bytes);
    const again = await extractPdfPages(bytes);
    expect(again.pages[0]!.text).toBe('Reusable');
  });
});
