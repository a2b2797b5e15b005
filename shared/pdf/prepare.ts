/**
 * Page preparation before OCR, for every engine (the same rendering goes to tesseract and Textract): dark print on
 * light paper, smoothing sized to the print, and for dot-matrix print one black-and-white threshold (Otsu).
 *
 * Why: print made of separate dots (dot-matrix receipts and invoices, coarse bitmap faces) reaches the engine as
 * clusters of dots rather than strokes. Tesseract read `INVOICE TOTAL` as `INUOICE TOTAL` when the dots touched and
 * nothing at all when they stood apart. A 1-pixel blur (at 200 DPI) smooths touching dots into strokes and costs
 * ordinary print nothing; dots that stand apart need a blur about half their pitch wide, which would merge the
 * letters of small ordinary print, so that width is used only where the page shows a dot pitch, and the threshold
 * then turns the blurred dots back into solid strokes.
 * bench/ocr-accuracy.ts measures the effect (BENCHMARKS.md).
 */

/** Dot pitches (pixels) looked for; a page without a clear one is ordinary print. */
const MAX_DOT_PITCH = 10;

export interface PagePreparation {
  /** Box-blur radius used (applied twice, an approximate Gaussian); 1 for ordinary print. */
  blurRadius: number;
  /** Dot pitch found on the page, in pixels; undefined for ordinary print. */
  dotPitch?: number;
  /** Grey level (0-255) at or below which a smoothed pixel became ink; undefined (kept grey) for ordinary print. */
  threshold?: number;
}

/**
 * Rewrites `rgba` in place as a black-and-white page ready for OCR. `inkIsDark` says which side the ink is on (from
 * the scan check); light print on a dark page comes out dark on white, as the engines read best.
 */
export function prepareForOcr(
  rgba: Uint8ClampedArray | Uint8Array,
  width: number,
  height: number,
  inkIsDark = true,
): PagePreparation {
  const total = width * height;
  let grey: Uint8Array<ArrayBufferLike> = new Uint8Array(total);
  for (let i = 0, p = 0; i < total; i++, p += 4) {
    const l = (rgba[p]! * 77 + rgba[p + 1]! * 150 + rgba[p + 2]! * 29) >> 8;
    grey[i] = inkIsDark ? l : 255 - l;
  }
  const dotPitch = findDotPitch(grey, width, height);
  const blurRadius = dotPitch === undefined ? 1 : Math.max(1, Math.floor(dotPitch / 2));
  grey = boxBlur(boxBlur(grey, width, height, blurRadius), width, height, blurRadius);
  // Dots blurred into strokes are grey and soft-edged: one threshold makes them solid. Ordinary print keeps its
  // grey levels: the engines threshold it themselves, and a page-wide threshold broke the thin strokes of 7 pt print.
  const threshold = dotPitch === undefined ? undefined : otsuThreshold(grey);
  for (let i = 0, p = 0; i < total; i++, p += 4) {
    const value = threshold === undefined ? grey[i]! : grey[i]! <= threshold ? 0 : 255;
    rgba[p] = rgba[p + 1] = rgba[p + 2] = value;
    rgba[p + 3] = 255;
  }
  return { blurRadius, dotPitch, threshold };
}

/**
 * The pitch of dot-matrix print, if the page is mostly that: down a column, a stroke of solid print stays inked from
 * one pixel to the next, while a column of dots is interrupted by the gap after each dot and inked again one pitch
 * further. So the chance that the pixel `d` below an ink pixel is ink, as `d` grows, falls and stays low for solid
 * print, but dips and comes back at the pitch for dots. Dots that touch show no dip: the 1-pixel blur suits them.
 */
export function findDotPitch(grey: Uint8Array, width: number, height: number): number | undefined {
  const threshold = otsuThreshold(grey);
  const pairs = new Float64Array(MAX_DOT_PITCH + 1);
  const inked = new Float64Array(MAX_DOT_PITCH + 1);
  let ink = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (grey[row + x]! > threshold) continue;
      ink++;
      for (let d = 1; d <= MAX_DOT_PITCH && y + d < height; d++) {
        pairs[d]!++;
        if (grey[row + x + d * width]! <= threshold) inked[d]!++;
      }
    }
  }
  if (ink === 0) return undefined;
  const share = ink / (width * height);
  const excess = (d: number) => (pairs[d] ? inked[d]! / pairs[d]! - share : 0);
  // The deepest dip within the first few pixels, then the first strong return after it (a pitch of 3.5 pixels comes
  // back partly at 4 and fully at 7: 4 is the pitch).
  let dip = 2;
  for (let d = 3; d <= 4; d++) if (excess(d) < excess(dip)) dip = d;
  let best = dip + 1;
  for (let d = dip + 2; d <= MAX_DOT_PITCH; d++) if (excess(d) > excess(best)) best = d;
  let pitch = best;
  for (let d = dip + 1; d < best; d++)
    if (excess(d) >= 0.6 * excess(best)) {
      pitch = d;
      break;
    }
  const dipped = excess(dip) < 0.5 * excess(1);
  const returns = excess(best) > 2 * Math.max(excess(dip), 0.02) && excess(best) > 0.5 * excess(1);
  return dipped && returns ? pitch : undefined;
}

/** One horizontal then one vertical pass of a (2r+1)-wide moving average, edges extended; row by row throughout. */
function boxBlur(source: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const across = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    for (let x = -radius; x <= radius; x++) sum += source[row + clamp(x, width)]!;
    for (let x = 0; x < width; x++) {
      across[row + x] = sum;
      sum += source[row + Math.min(x + radius + 1, width - 1)]! - source[row + Math.max(x - radius, 0)]!;
    }
  }
  const out = new Uint8Array(width * height);
  const columns = new Uint32Array(width);
  for (let y = -radius; y <= radius; y++) {
    const row = clamp(y, height) * width;
    for (let x = 0; x < width; x++) columns[x]! += across[row + x]!;
  }
  const scale = 1 / ((2 * radius + 1) * (2 * radius + 1));
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const enter = clamp(y + radius + 1, height) * width;
    const leave = clamp(y - radius, height) * width;
    for (let x = 0; x < width; x++) {
      out[row + x] = columns[x]! * scale + 0.5;
      columns[x]! += across[enter + x]! - across[leave + x]!;
    }
  }
  return out;
}

function clamp(i: number, size: number): number {
  return i < 0 ? 0 : i >= size ? size - 1 : i;
}

/** Otsu's threshold: the grey level that best splits the histogram into two classes (ink at or below it). */
export function otsuThreshold(grey: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let i = 0; i < grey.length; i++) histogram[grey[i]!]!++;
  let weightedSum = 0;
  for (let level = 0; level < 256; level++) weightedSum += level * histogram[level]!;
  let below = 0;
  let belowSum = 0;
  let best = -1;
  let threshold = 127;
  for (let level = 0; level < 255; level++) {
    below += histogram[level]!;
    if (below === 0) continue;
    const above = grey.length - below;
    if (above === 0) break;
    belowSum += level * histogram[level]!;
    const meanBelow = belowSum / below;
    const meanAbove = (weightedSum - belowSum) / above;
    const between = below * above * (meanBelow - meanAbove) ** 2;
    if (between > best) {
      best = between;
      threshold = level;
    }
  }
  return threshold;
}
