import { describe, expect, it } from 'vitest';
import { parseConfig } from '#shared/kernel/config.ts';
import { noMetrics } from '#shared/kernel/metrics.ts';
import { ocrFromSettings, pdfSettings } from '#shared/pdf/index.ts';

const cfg = parseConfig({ TABLE_NAME: 't' });

describe('OCR from the pdf area settings', () => {
  it('tesseract locally and Textract on AWS unless OCR_ENGINE says otherwise; none turns it off', () => {
    expect(pdfSettings.parse({}).ocrEngine).toBe('textract');
    expect(pdfSettings.parse({ SWITCHBOARD_RUNTIME: 'local' }).ocrEngine).toBe('tesseract');
    expect(pdfSettings.parse({ SWITCHBOARD_RUNTIME: 'local', OCR_ENGINE: 'textract' }).ocrEngine).toBe('textract');
    expect(ocrFromSettings({ cfg }, noMetrics, pdfSettings.parse({ OCR_ENGINE: 'none' }))).toBeUndefined();
  });

  it('the engine, its concurrency, the DPI and the page deadline as set', () => {
    const ocr = ocrFromSettings(
      { cfg },
      undefined,
      pdfSettings.parse({ OCR_ENGINE: 'tesseract', OCR_CONCURRENCY: '3', OCR_DPI: '300', OCR_PAGE_TIMEOUT_MS: '5000' }),
    );
    expect(ocr).toMatchObject({ dpi: 300, pageTimeoutMs: 5000 });
    expect(ocr?.engine).toMatchObject({ name: 'tesseract', concurrency: 3 });
    const textract = ocrFromSettings({ cfg }, noMetrics, pdfSettings.parse({}));
    expect(textract?.engine).toMatchObject({ name: 'textract', concurrency: 8 });
    expect(textract).toMatchObject({ dpi: 200, pageTimeoutMs: 60_000 });
  });

  it('refuses a DPI outside 72-600 by name', () => {
    expect(() => pdfSettings.parse({ OCR_DPI: '7' })).toThrow(/^Invalid configuration: OCR_DPI: /);
  });
});
