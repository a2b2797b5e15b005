import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { CorruptPdfError } from './errors.ts';
import type { PageImage } from './ocr.ts';
import { prepareForOcr } from './prepare.ts';
import { assessScan, type ScanVerdict } from './scan-quality.ts';

/** Large pages are rendered at a lower resolution so one page never takes more than this many pixels (~64 MB RGBA). */
const MAX_PIXELS = 16_000_000;
/** Textract's limit per side; tesseract does not need more. */
const MAX_SIDE = 10_000;
/** Textract takes images up to 10 MB; a PNG above this is sent as JPEG instead. */
const MAX_PNG_BYTES = 8 * 1024 * 1024;

type CanvasModule = typeof import('@napi-rs/canvas');
type Canvas = import('@napi-rs/canvas').Canvas;
let canvasModule: Promise<CanvasModule> | undefined;

/**
 * Canvases are created once and reused, resized to each page. @napi-rs/canvas 1.0.11 does not give back the native
 * pixels of a canvas that is dropped after `getImageData` (~15 MB a page at 200 DPI, gigabytes over a long scan),
 * while resizing one frees its old pixels. Idle canvases are shrunk to 1×1 so they hold nothing.
 */
const idleCanvases: Canvas[] = [];

async function takeCanvas(width: number, height: number): Promise<Canvas> {
  const canvas = idleCanvases.pop();
  if (!canvas) {
    canvasModule ??= import('@napi-rs/canvas');
    return (await canvasModule).createCanvas(width, height);
  }
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

function returnCanvas(canvas: Canvas): void {
  canvas.width = 1;
  canvas.height = 1;
  idleCanvases.push(canvas);
}

export interface RenderOptions {
  /**
   * Smooth and threshold the page for OCR (./prepare.ts). Default true; false sends the rendering as drawn, and a
   * function prepares it in place instead: the OCR benchmarks measure what the preparation is worth, or another
   * checkout's preparation against this one.
   */
  prepare?: boolean | typeof prepareForOcr;
}

export interface RenderedPage {
  image: PageImage;
  verdict: ScanVerdict;
}

/**
 * Renders one page (pdfjs onto an @napi-rs/canvas) at `dpi`, looks at the pixels (blank? random dots?), prepares a
 * page of text for OCR (black print on white, dots joined into strokes) and encodes the image. Loaded lazily:
 * callers that never OCR never load the native canvas module.
 */
export async function renderPage(
  page: PDFPageProxy,
  pageNumber: number,
  dpi: number,
  options: RenderOptions = {},
): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  let scale = dpi / 72;
  const pixels = base.width * base.height * scale * scale;
  if (pixels > MAX_PIXELS) scale *= Math.sqrt(MAX_PIXELS / pixels);
  scale = Math.min(scale, MAX_SIDE / Math.max(base.width, base.height));
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const canvas = await takeCanvas(width, height);
  try {
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    try {
      await page.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
    } catch (error) {
      throw new CorruptPdfError(`The PDF is damaged: page ${pageNumber} could not be drawn.`, { cause: error });
    }

    const pixelsData = context.getImageData(0, 0, width, height);
    const assessment = assessScan(pixelsData.data, width, height);
    const effectiveDpi = Math.round(scale * 72);
    if (assessment.verdict !== 'text') {
      return {
        image: { page: pageNumber, data: Buffer.alloc(0), format: 'png', width, height, dpi: effectiveDpi },
        verdict: assessment.verdict,
      };
    }
    if (options.prepare ?? true) {
      const prepare = typeof options.prepare === 'function' ? options.prepare : prepareForOcr;
      prepare(pixelsData.data, width, height, assessment.inkIsDark);
      context.putImageData(pixelsData, 0, 0);
    } else if (assessment.despeckled > 0) context.putImageData(pixelsData, 0, 0);
    // encode() runs off the main thread (toBuffer() would block it for the ~100 ms a page takes).
    let data = await canvas.encode('png');
    let format: PageImage['format'] = 'png';
    if (data.length > MAX_PNG_BYTES) {
      data = await canvas.encode('jpeg', 90);
      format = 'jpeg';
    }
    return { image: { page: pageNumber, data, format, width, height, dpi: effectiveDpi }, verdict: 'text' };
  } finally {
    returnCanvas(canvas);
  }
}
