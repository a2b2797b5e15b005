/**
 * A cheap look at a rendered page before paying for OCR (tesseract needs seconds per page on text, and minutes on
 * random noise). Works on the RGBA pixels of the rendering.
 *
 * - blank: no two tones far enough apart (paper only), or a handful of specks.
 * - noise: the dark pixels are scattered like random dots. On text, a dark pixel's neighbour along a stroke is mostly
 *   dark too; on random noise it is dark only as often as any pixel is, whatever the noise density. The excess of
 *   that "coherence" over the ink density separates them.
 * - text: anything else is worth reading.
 *
 * The coherence is looked for 4, 5 and 6 pixels away, along rows and along columns, and the best of those is kept.
 * Not next door: noise drawn larger than its pixels (a 200-DPI scan rendered at 300 DPI) is coherent over its own
 * grain, and dot-matrix print is not coherent across the gaps between its dots. A few pixels on, noise is random
 * again while a stroke, or the next dot of a row of dots, is still there. Taking the better of the two directions is
 * what keeps small print: a thin stem is coherent down the column only.
 *
 * Also whitens isolated dark pixels (scanner speckle) in place: they carry no text and slow tesseract down.
 */
export type ScanVerdict = 'text' | 'blank' | 'noise';

export interface ScanAssessment {
  verdict: ScanVerdict;
  /** Share of pixels on the ink side of the threshold. */
  ink: number;
  /**
   * P(pixel d away is ink | pixel is ink) minus the ink share, at the distance (4 to 6 pixels) and in the direction
   * (rows or columns) where it is strongest: ~0 for random dots, 0.15 and more for strokes and rows of dots.
   */
  coherenceExcess: number;
  /** Isolated dark pixels whitened. */
  despeckled: number;
  /** The ink is darker than the paper (false: light print on a dark page). */
  inkIsDark: boolean;
}

const MIN_CONTRAST = 48;
const MIN_INK_PIXELS = 64;
/**
 * Measured: random dots at any density, drawn at 1 to 3 pixels a dot, 0.00-0.05; text from 7 px (DejaVu Sans, Serif,
 * Mono, Liberation Sans) and dot-matrix print with gaps between its dots, 0.15 and more.
 */
const MIN_COHERENCE_EXCESS = 0.1;
/** Beyond the grain noise is drawn at (up to 3 pixels a dot), within a stroke's length or a dot-matrix pitch or two. */
const COHERENCE_DISTANCES = [4, 5, 6] as const;
/** A dark pixel with no other within this many pixels is a speck; 2 keeps the dots of dot-matrix print. */
const SPECK_RADIUS = 2;

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
  if (light - dark < MIN_CONTRAST)
    return { verdict: 'blank', ink: 0, coherenceExcess: 0, despeckled: 0, inkIsDark: true };
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

  const along = COHERENCE_DISTANCES.map(() => ({ rowPairs: 0, rowInk: 0, columnPairs: 0, columnInk: 0 }));
  let despeckled = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (!ink[i]) continue;
      for (let k = 0; k < COHERENCE_DISTANCES.length; k++) {
        const d = COHERENCE_DISTANCES[k]!;
        const counts = along[k]!;
        if (x + d < width) {
          counts.rowPairs++;
          counts.rowInk += ink[i + d]!;
        }
        if (y + d < height) {
          counts.columnPairs++;
          counts.columnInk += ink[i + d * width]!;
        }
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
  const coherenceExcess = Math.max(
    ...along.map(
      (c) =>
        Math.max(c.rowPairs ? c.rowInk / c.rowPairs : 0, c.columnPairs ? c.columnInk / c.columnPairs : 0) - inkShare,
    ),
  );
  if (remaining < MIN_INK_PIXELS) return { verdict: 'blank', ink: inkShare, coherenceExcess, despeckled, inkIsDark };
  return {
    verdict: coherenceExcess < MIN_COHERENCE_EXCESS ? 'noise' : 'text',
    ink: inkShare,
    coherenceExcess,
    despeckled,
    inkIsDark,
  };
}

function isolated(ink: Uint8Array, width: number, height: number, x: number, y: number): boolean {
  for (let dy = -SPECK_RADIUS; dy <= SPECK_RADIUS; dy++) {
    const ny = y + dy;
    if (ny < 0 || ny >= height) continue;
    for (let dx = -SPECK_RADIUS; dx <= SPECK_RADIUS; dx++) {
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
