/**
 * Page preparation before OCR, for every engine (the same rendering goes to tesseract and Textract): dark print on
 * light paper, smoothing sized to the print, and for bitmap faces one black-and-white threshold (Otsu).
 *
 * Why: print made of dots or pixels (dot-matrix receipts and invoices, thermal printers, bitmap screen faces) reaches
 * the engine as clusters of dots or stair-stepped blocks rather than strokes. Tesseract read `INVOICE TOTAL` as
 * `INUOICE TOTAL` or `IHJOICE TOTHL`, and nothing at all when the dots stood apart. A 1-pixel blur (at 200 DPI)
 * smooths small dots into strokes and costs ordinary print nothing; larger dots and pixels need a blur sized to
 * them, which would merge the letters of small ordinary print, so that width is used only where the page shows a
 * bitmap face, and the threshold then turns the blurred print back into solid, rounded strokes. Three signs of one:
 *
 * - dots apart: the ink, looked at down a column, stops after each dot and comes back one pitch further;
 * - dots that touch: the ink is continuous, but the edge of a stroke of round dots bulges at each dot, so the left
 *   edges of the ink come back one pitch further down (the edges of an ordinary stroke run straight or slant away);
 * - square pixels: every stroke is one pixel of the face wide, so most runs of ink across rows and columns have the
 *   same length (in ordinary print two or three lengths share them, whatever the size or weight).
 * bench/ocr-accuracy.ts and bench/ocr-bitmap.ts measure the effect (bench/history/).
 */
/** Dot pitches (pixels) looked for; a page without a clear one is ordinary print. */
const MAX_DOT_PITCH = 10;

/** Of the runs of ink this long or shorter, a bitmap face of square pixels has one length hold this share at least. */
const SQUARE_PIXEL_RUN_SHARE = 0.6;
/** A face's stroke width over this is the blur radius for a bitmap face; 2 pixels and more, or it is left alone. */
const STROKE_PER_BLUR_RADIUS = 2.5;
const MAX_RUN = 63;

/** The kind of bitmap face found on a page. */
export type BitmapFace = 'dots apart' | 'dots touching' | 'square pixels';

export interface PagePreparation {
  /** Box-blur radius used (applied twice, an approximate Gaussian); 1 for ordinary print. */
  blurRadius: number;
  /** The bitmap face found; undefined for ordinary print. */
  face?: BitmapFace;
  /** Dot pitch found on the page, in pixels (dots apart, dots touching); undefined otherwise. */
  dotPitch?: number;
  /** The face's stroke width in pixels (dots touching, square pixels); undefined otherwise. */
  strokeWidth?: number;
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
  const found = findBitmapFace(grey, width, height);
  const blurRadius = found?.blurRadius ?? 1;
  grey = boxBlur(boxBlur(grey, width, height, blurRadius), width, height, blurRadius);
  // Dots and pixels blurred into strokes are grey and soft-edged: one threshold makes them solid. Ordinary print keeps
  // its grey levels: the engines threshold it themselves, and a page-wide threshold broke the thin strokes of 7 pt.
  const threshold = found ? otsuThreshold(grey) : undefined;
  for (let i = 0, p = 0; i < total; i++, p += 4) {
    const value = threshold === undefined ? grey[i]! : grey[i]! <= threshold ? 0 : 255;
    rgba[p] = rgba[p + 1] = rgba[p + 2] = value;
    rgba[p + 3] = 255;
  }
  return { ...found, blurRadius, threshold };
}

/**
 * The bitmap face of a page, if it is mostly one, with the blur radius that joins its dots or rounds its pixels into
 * strokes: half the dot pitch for dots apart, the stroke width over {@link STROKE_PER_BLUR_RADIUS} otherwise. Small
 * faces (a radius under 2) are left to the ordinary 1-pixel blur, which reads them as well.
 */
export function findBitmapFace(
  grey: Uint8Array,
  width: number,
  height: number,
): (Omit<PagePreparation, 'threshold'> & { face: BitmapFace }) | undefined {
  const ink = inkMask(grey);
  const dotPitch = pitchOf(ink, width, height);
  if (dotPitch !== undefined)
    return { face: 'dots apart', dotPitch, blurRadius: Math.max(1, Math.floor(dotPitch / 2)) };
  const runs = inkRuns(ink, width, height);
  const radius = (stroke: number) => Math.round(stroke / STROKE_PER_BLUR_RADIUS);
  const beads = pitchOf(leftEdges(ink, width, height), width, height);
  if (beads !== undefined && radius(runs.upperQuartile) >= 2)
    return {
      face: 'dots touching',
      dotPitch: beads,
      strokeWidth: runs.upperQuartile,
      blurRadius: radius(runs.upperQuartile),
    };
  if (runs.commonShare >= SQUARE_PIXEL_RUN_SHARE && radius(runs.common) >= 2)
    return { face: 'square pixels', strokeWidth: runs.common, blurRadius: radius(runs.common) };
  return undefined;
}

/** 1 where the pixel is ink (at or below the page's Otsu threshold), 0 where it is paper. */
function inkMask(grey: Uint8Array): Uint8Array {
  const threshold = otsuThreshold(grey);
  const ink = new Uint8Array(grey.length);
  for (let i = 0; i < grey.length; i++) ink[i] = grey[i]! <= threshold ? 1 : 0;
  return ink;
}

/**
 * Runs of ink along rows and columns, up to {@link MAX_RUN} pixels: the most common length and its share, and the
 * length three quarters of them do not exceed (a stroke's width, give or take).
 */
function inkRuns(ink: Uint8Array, width: number, height: number) {
  const counts = new Float64Array(MAX_RUN + 1);
  const count = (run: number) => {
    if (run > 0 && run <= MAX_RUN) counts[run]!++;
  };
  const down = new Uint16Array(width);
  for (let y = 0; y < height; y++) {
    let across = 0;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (ink[i]) {
        across++;
        down[x]!++;
      } else {
        count(across);
        count(down[x]!);
        across = 0;
        down[x] = 0;
      }
    }
    count(across);
  }
  for (let x = 0; x < width; x++) count(down[x]!);
  let total = 0;
  let common = 1;
  for (let run = 1; run <= MAX_RUN; run++) {
    total += counts[run]!;
    if (counts[run]! > counts[common]!) common = run;
  }
  let upperQuartile = MAX_RUN;
  for (let run = 1, seen = 0; run <= MAX_RUN; run++) {
    seen += counts[run]!;
    if (seen >= 0.75 * total) {
      upperQuartile = run;
      break;
    }
  }
  return { common, commonShare: total ? counts[common]! / total : 0, upperQuartile };
}

/** The left edges of the ink (ink whose left neighbour is paper), as a mask of their own. */
function leftEdges(ink: Uint8Array, width: number, height: number): Uint8Array {
  const edges = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let i = y * width + 1, end = (y + 1) * width; i < end; i++) edges[i] = ink[i]! & (ink[i - 1]! ^ 1);
  return edges;
}

/**
 * The pitch of dot-matrix print, if the page is mostly that: down a column, a stroke of solid print stays inked from
 * one pixel to the next, while a column of dots is interrupted by the gap after each dot and inked again one pitch
 * further. So the chance that the pixel `d` below an ink pixel is ink, as `d` grows, falls and stays low for solid
 * print, but dips and comes back at the pitch for dots. Dots that touch show no dip in the ink, only in its edges.
 */
export function findDotPitch(grey: Uint8Array, width: number, height: number): number | undefined {
  return pitchOf(inkMask(grey), width, height);
}

/** {@link findDotPitch} on a mask (1 = ink): the ink itself, or the left edges of the ink. */
function pitchOf(mask: Uint8Array, width: number, height: number): number | undefined {
  const pairs = new Float64Array(MAX_DOT_PITCH + 1);
  const inked = new Float64Array(MAX_DOT_PITCH + 1);
  let ink = 0;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (!mask[row + x]) continue;
      ink++;
      for (let d = 1; d <= MAX_DOT_PITCH && y + d < height; d++) {
        pairs[d]!++;
        inked[d]! += mask[row + x + d * width]!;
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
