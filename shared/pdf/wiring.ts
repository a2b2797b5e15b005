import { metricNames } from '../contract/metrics.ts';
import type { Platform } from '../kernel/platform.ts';
import type { Metrics } from '../kernel/metrics.ts';
import { TesseractOcrEngine } from './adapters/tesseract-ocr.ts';
import { textractClient, TextractOcrEngine } from './adapters/textract-ocr.ts';
import type { OcrOptions } from './pdf-page.ts';
import type { OcrEngine } from './ocr.ts';
import { pdfSettings, type PdfSettings } from './settings.ts';

/**
 * How this function reads scanned pages (`OCR_ENGINE` and the other OCR settings, ./settings.ts), with each page
 * counted in `metrics` when given; undefined when OCR is turned off.
 */
export function ocrFromSettings(
  platform: Pick<Platform, 'cfg'>,
  metrics?: Metrics,
  settings: PdfSettings = pdfSettings.read(),
): OcrOptions | undefined {
  if (settings.ocrEngine === 'none') return undefined;
  const engine =
    settings.ocrEngine === 'tesseract'
      ? new TesseractOcrEngine({
          workers: settings.OCR_CONCURRENCY ?? 1,
          ...(settings.TESSERACT_LANG_PATH ? { langPath: settings.TESSERACT_LANG_PATH } : {}),
        })
      : new TextractOcrEngine(textractClient(platform.cfg), { concurrency: settings.OCR_CONCURRENCY ?? 8 });
  return {
    engine: metrics ? meteredOcrEngine(engine, metrics) : engine,
    dpi: settings.OCR_DPI,
    pageTimeoutMs: settings.OCR_PAGE_TIMEOUT_MS,
  };
}

/** Pages read by OCR, by engine and outcome (read, failed): the engine port, plus one count per page. */
export function meteredOcrEngine(engine: OcrEngine, metrics: Metrics): OcrEngine {
  return {
    name: engine.name,
    concurrency: engine.concurrency,
    async recognize(image, signal) {
      try {
        const text = await engine.recognize(image, signal);
        metrics.count(metricNames.ocrPages, 1, { engine: engine.name, outcome: 'read' });
        return text;
      } catch (error) {
        metrics.count(metricNames.ocrPages, 1, { engine: engine.name, outcome: 'failed' });
        throw error;
      }
    },
  };
}
