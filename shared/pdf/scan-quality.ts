/**
 * A cheap look at a rendered page before paying for OCR (tesseract needs seconds per page on text, and minutes on
 * random noise). Works on the RGBA pixels of the rendering.
 *
 * - blank: no two tones far enough apart (paper only), or a handful of specks.
 * - noise: the dark pixels are scattered like random dots. On text, a dark pixel's right and lower neighbours are
 *   mostly dark too (strokes are several pixels thick at 200 DPI); on random noise they are dark only as often as
 *   any pixel is, whatever the noise density. The excess of that "coherence" over the ink density separates them.
 * - text: anything else is worth reading.
 *
 * Also whitens isolated dark pixels (scanner speckle) in place: they carry no text and slow tesseract down.
 */
export type ScanVerdict = 'text' | 'blank' | 'noise';

export interface ScanAssessment {
  verdict: ScanVerdict;
  /** Share of pixels on the ink side of the threshold. */
  ink: number;
  /** P(neighbour is ink | pixel is ink) minus the ink share; ~0 for random dots, well above 0 for strokes. */
  coherenceExcess: number;
  /** Isolated dark pixels whitened. */
  despeckled: number;
}

const MIN_CONTRAST = 48;
const MIN_INK_PIXELS = 64;
const MIN_COHERENCE_EXCESS = 0.3;

export function assessScan(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): ScanAssessment {
  const total = width * height;
  const lum = new Uint8Array(total);
  const histogram = new Uint32Array(256);
  for (let i = 0, p = 0; i < total; i++, p += 4) {
    const l = (rgba[p]! * 77 + rgba[p + 1]! * 150 + rgba[p + 2]! * 29) >> 8;
    lum[i] = l;
    histogram[l]!++;
  }
  // The darkest tone that enough pixels share (one line of text on a page is well under 1 % of it).
  const dark = percentile(histogram, Math.min(total * 0.005, MIN_INK_PIXELS * 4));
  const light = percentile(histogram, total * 0.95);
  if (light - dark < MIN_CONTRAST) return { verdict: 'blank', ink: 0, coherenceExcess: 0, despeckled: 0 };
  const threshold = (light + dark) >> 1;

  // Ink is the minority side: dark text on light paper, or light text on a dark page.
  let below = 0;
  for (let l = 0; l < threshold; l++) below += histogram[l]!;
  const inkIsDark = below <= total / 2;
  const ink = new Uint8Array(total);
  let inkCount = 0;
  for (let i = 0; i < total; i++) {
    const isInk = inkIsDark ? lum[i]! < threshold : lum[i]! >= threshold;
    if (isInk) {
      ink[i] = 1;
      inkCount++;
    }
  }

  let pairs = 0;
  let coherent = 0;
  let despeckled = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (!ink[i]) continue;
      if (x + 1 < width) {
        pairs++;
        coherent += ink[i + 1]!;
      }
      if (y + 1 < height) {
        pairs++;
        coherent += ink[i + width]!;
      }
      if (inkIsDark && isolated(ink, width, height, x, y)) {
        const p = i * 4;
        rgba[p] = rgba[p + 1] = rgba[p + 2] = 255;
        despeckled++;
      }
    }
  }
  const inkShare = inkCount / total;
  const remaining = inkCount - despeckled;
  const coherenceExcess = pairs ? coherent / pairs - inkShare : 0;
  if (remaining < MIN_INK_PIXELS) return { verdict: 'blank', ink: inkShare, coherenceExcess, despeckled };
  return {
    verdict: coherenceExcess < MIN_COHERENCE_EXCESS ? 'noise' : 'text',
    ink: inkShare,
    coherenceExcess,
    despeckled,
  };
}

function isolated(ink: Uint8Array, width: number, height: number, x: number, y: number): boolean {
  for (let dy = -1; dy <= 1; dy++) {
    const ny = y + dy;
    if (ny < 0 || ny >= height) continue;
    for (let dx = -1; dx <= 1; dx++) {
      const nx = x + dx;
      if ((dx === 0 && dy === 0) || nx < 0 || nx >= width) continue;
      if (ink[ny * width + nx]) return false;
    }
  }
  return true;
}

/** The lowest level at or below which more than `count` pixels lie. */
function percentile(histogram: Uint32Array, count: number): number {
  const target = count;
  let seen = 0;
  for (let l = 0; l < 256; l++) {
    seen += histogram[l]!;
    if (seen > target) return l;
  }
  return 255;
}
