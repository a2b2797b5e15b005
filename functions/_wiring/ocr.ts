import { TesseractOcrEngine } from '#shared/pdf/adapters/tesseract-ocr.ts';
import { textractClient, TextractOcrEngine } from '#shared/pdf/adapters/textract-ocr.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import type { OcrOptions } from '#shared/pdf/index.ts';
import { meteredOcrEngine } from '#functions/_wiring/metered.ts';

/** Which OCR engine runs: `OCR_ENGINE`, else tesseract.js locally and Textract on AWS. */
export function ocrEngineName(cfg: Config): 'tesseract' | 'textract' | 'none' {
  return cfg.OCR_ENGINE ?? (cfg.SWITCHBOARD_RUNTIME === 'local' ? 'tesseract' : 'textract');
}

/** The OCR settings for extraction, from configuration; undefined when OCR is turned off. Pages counted in `metrics`. */
export function ocrFromConfig(cfg: Config, metrics?: Metrics): OcrOptions | undefined {
  const name = ocrEngineName(cfg);
  if (name === 'none') return undefined;
  const engine =
    name === 'tesseract'
      ? new TesseractOcrEngine({
          workers: cfg.OCR_CONCURRENCY ?? 1,
          ...(cfg.TESSERACT_LANG_PATH ? { langPath: cfg.TESSERACT_LANG_PATH } : {}),
        })
      : new TextractOcrEngine(textractClient(cfg), { concurrency: cfg.OCR_CONCURRENCY ?? 8 });
  return {
    engine: metrics ? meteredOcrEngine(engine, metrics) : engine,
    dpi: cfg.OCR_DPI,
    pageTimeoutMs: cfg.OCR_PAGE_TIMEOUT_MS,
  };
}
