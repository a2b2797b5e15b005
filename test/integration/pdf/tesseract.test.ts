import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, describe, expect, it } from 'vitest';
import { TesseractOcrEngine } from '#shared/pdf/adapters/tesseract-ocr.ts';
import { OcrEngineError, type PageImage } from '#shared/pdf/index.ts';
import { testFont } from '#test/support/fonts.ts';

/** tesseract.js for real (WebAssembly in a worker thread), offline, with the language data from the npm packages. */
const engine = new TesseractOcrEngine({ workers: 1, idleMs: 60_000 });
afterAll(() => engine.close());

function image(lines: string[], width = 1000, lineHeight = 60): PageImage {
  const height = lineHeight * (lines.length + 1);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#000';
  ctx.font = testFont(36);
  for (const [i, line] of lines.entries()) ctx.fillText(line, 30, lineHeight * (i + 1));
  return { page: 1, data: canvas.toBuffer('image/png'), format: 'png', width, height, dpi: 200 };
}

describe('TesseractOcrEngine', () => {
  it('reads Portuguese and English text, offline, writing nothing to the working directory', async () => {
    const result = await engine.recognize(
      image(['Atenção: relatório de ações', 'Quarterly report ready']),
      AbortSignal.timeout(60_000),
    );
    expect(result.text).toContain('Atenção: relatório de ações');
    expect(result.text).toContain('Quarterly report ready');
    expect(result.confidence).toBeGreaterThan(80);
    for (const name of ['por.traineddata', 'eng.traineddata'])
      expect(existsSync(join(process.cwd(), name))).toBe(false);
  });

  it('gives up on a page when its signal aborts, and the next page gets a fresh worker', async () => {
    const page = image(
      Array.from({ length: 30 }, (_, i) => `Line ${i} of a long page that takes a while to read`),
      1700,
      70,
    );
    const reason = new Error('page budget spent');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 150);
    const started = Date.now();
    await expect(engine.recognize(page, controller.signal)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
    const next = await engine.recognize(image(['Still working']), AbortSignal.timeout(60_000));
    expect(next.text).toContain('Still working');
  });

  it('fails with OcrEngineError, not a crash, when language data is missing', async () => {
    const broken = new TesseractOcrEngine({ languages: ['xyz'] });
    await expect(broken.recognize(image(['x']), AbortSignal.timeout(10_000))).rejects.toBeInstanceOf(OcrEngineError);
    const emptyFolder = new TesseractOcrEngine({ langPath: mkdtempSync(join(tmpdir(), 'no-tessdata-')) });
    await expect(emptyFolder.recognize(image(['x']), AbortSignal.timeout(10_000))).rejects.toBeInstanceOf(
      OcrEngineError,
    );
  });
});
