import {
  DecodeBudget,
  inThreadWorker,
  loadPdfjs,
  type OcrEngine,
  pdfjsAssets,
  type RenderOptions,
  renderPage,
} from '#shared/pdf/index.ts';

/** Extract's budget for one page's OCR: a page past it reads as nothing there, and here. */
const PAGE_TIMEOUT_MS = 60_000;

/**
 * Renders page 1 of `pdf` at `dpi` (prepared as `options` say) and recognizes it, as extract does for a page without a
 * text layer: pdfjs on an in-thread worker, every decode charged to a budget (pdfjs refuses to decode outside one).
 * Seconds are render + prepare + recognize.
 */
export async function readScannedPage(
  engine: OcrEngine,
  pdf: Uint8Array,
  dpi: number,
  options: RenderOptions,
): Promise<{ text: string; seconds: number }> {
  const pdfjs = await loadPdfjs();
  const { worker, dispose } = await inThreadWorker();
  const budget = new DecodeBudget({ pageTimeoutMs: 600_000 });
  const task = budget.run(() =>
    pdfjs.getDocument({ worker, data: pdf.slice(), ...pdfjsAssets(), cMapPacked: true, disableFontFace: true }),
  );
  try {
    const doc = await budget.run(() => task.promise);
    const page = await budget.run(() => doc.getPage(1));
    const started = performance.now();
    const rendered = await budget.run(() => renderPage(page, 1, dpi, options));
    const text =
      rendered.verdict === 'text'
        ? await engine
            .recognize(rendered.image, AbortSignal.timeout(PAGE_TIMEOUT_MS))
            .then((r) => r.text)
            .catch((error: unknown) => {
              if ((error as Error).name === 'TimeoutError') return '';
              throw error;
            })
        : '';
    return { text, seconds: (performance.now() - started) / 1000 };
  } finally {
    await task.destroy();
    dispose();
  }
}
