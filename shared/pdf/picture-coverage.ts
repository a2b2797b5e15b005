import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { CorruptPdfError } from './errors.ts';

export interface PictureCoverage {
  /** Share of the page area covered by images (0 to 1). */
  imageCoverage: number;
  /** Path construction operations (vector drawings, or text converted to outlines). */
  paths: number;
}

/** Walks the page's drawing operations, following the transformation matrix, to see how much of it is pictures. */
export async function pictureCoverage(
  page: PDFPageProxy,
  ops: Record<string, number>,
  number: number,
): Promise<PictureCoverage> {
  let list: Awaited<ReturnType<PDFPageProxy['getOperatorList']>>;
  try {
    list = await page.getOperatorList();
  } catch (error) {
    throw new CorruptPdfError(`The PDF is damaged: the drawing of page ${number} could not be read.`, { cause: error });
  }
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const pageArea = Math.abs((x1 - x0) * (y1 - y0)) || 1;
  const imageOps = new Set(
    [
      'paintImageXObject',
      'paintInlineImageXObject',
      'paintImageMaskXObject',
      'paintImageXObjectRepeat',
      'paintImageMaskXObjectRepeat',
      'paintInlineImageXObjectGroup',
      'paintImageMaskXObjectGroup',
    ].map((name) => ops[name]),
  );
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  let imageArea = 0;
  let paths = 0;
  const images = new Set<string>();
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args?.[0])) ctm = multiply(ctm, args[0] as Matrix);
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === ops.constructPath) paths++;
    else if (imageOps.has(fn)) {
      imageArea += Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
      if (typeof args?.[0] === 'string') images.add(args[0]);
    }
  }
  await decodedImages(page, images);
  return { imageCoverage: Math.min(1, imageArea / pageArea), paths };
}

/**
 * pdfjs resolves `getOperatorList()` before the page's images are decoded, and goes on decoding them: waiting for
 * each image object (decoded, or dropped by pdfjs) makes a refusal by the decode budget land on this page, every
 * time, rather than after the document was answered. Pages that are pictures need the images next anyway.
 */
async function decodedImages(page: PDFPageProxy, ids: Set<string>): Promise<void> {
  if (!ids.size) return;
  const pools = page as unknown as Record<
    'objs' | 'commonObjs',
    { get(id: string, ok: () => void, failed: () => void): void }
  >;
  let timer: NodeJS.Timeout | undefined;
  // Never a reason to hang: pdfjs resolves every image it was asked to paint, but a page read goes on regardless.
  const patience = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, IMAGE_WAIT_MS);
  });
  await Promise.race([
    patience,
    Promise.all(
      [...ids].map(
        (id) =>
          new Promise<void>((resolve) =>
            (id.startsWith('g_') ? pools.commonObjs : pools.objs).get(id, resolve, resolve),
          ),
      ),
    ),
  ]);
  clearTimeout(timer);
}

const IMAGE_WAIT_MS = 15_000;

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}
