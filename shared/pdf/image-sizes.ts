/**
 * How large an image will be once decoded, read from what the decoders themselves read: image decoders allocate
 * from sizes inside the data (a JPEG's frame header, a JPEG 2000 SIZ marker, JBIG2 page information), not from the
 * image dictionary, so a 16×16 image in the dictionary can be a 30000×30000 frame. Used by ./decode-bound.ts to
 * refuse before decoding. Every reader is linear and stops at the first answer; 0 means "no size found" (the decoder
 * then fails on its own).
 */

/** A pdfjs `Dict` as far as these readers need it. */
export interface DictLike {
  get(...keys: string[]): unknown;
  has(key: string): boolean;
}

const u16 = (d: Uint8Array, i: number) => (d[i]! << 8) | d[i + 1]!;
const u32 = (d: Uint8Array, i: number) => ((d[i]! << 24) | (d[i + 1]! << 16) | (d[i + 2]! << 8) | d[i + 3]!) >>> 0;

/** Width × height × components of the JPEG's first frame header (SOFn). */
export function jpegSamples(data: Uint8Array): number {
  let i = 0;
  while (i + 1 < data.length && !(data[i] === 0xff && data[i + 1] === 0xd8)) i++;
  i += 2;
  while (i + 3 < data.length) {
    if (data[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = data[i + 1]!;
    // Fill bytes, stuffed zeros, restart markers, SOI and TEM carry no length.
    if (marker === 0xff || marker === 0x00 || (marker >= 0xd0 && marker <= 0xd8) || marker === 0x01) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame && i + 9 < data.length) {
      const height = u16(data, i + 5);
      const width = u16(data, i + 7);
      const components = data[i + 9]!;
      // Height 0 is given later by a DNL marker: pdfjs then decodes up to 65535 lines.
      return width * (height || 0xffff) * Math.max(1, components);
    }
    if (marker === 0xda) return 0; // a scan before any frame
    i += 2 + u16(data, i + 2);
  }
  return 0;
}

/**
 * Samples of a JPEG 2000 codestream (its SIZ marker), at full size: pdfjs decodes at a reduced resolution when the
 * image is huge, but openjpeg's WebAssembly memory still grows with the full size, and never shrinks.
 */
export function jpxSamples(data: Uint8Array): number {
  for (let i = 0; i + 40 < data.length; i++) {
    if (data[i] !== 0xff || data[i + 1] !== 0x51) continue;
    const width = u32(data, i + 6) - u32(data, i + 14);
    const height = u32(data, i + 10) - u32(data, i + 18);
    return Math.max(0, width) * Math.max(0, height) * Math.max(1, u16(data, i + 38));
  }
  return 0;
}

/** Bytes of a 1-bit JBIG2 page: the larger of the dictionary's size and the page information segments'. */
export function jbig2Bytes(dict: DictLike | undefined, data: Uint8Array): number {
  let width = numberIn(dict, 'Width');
  let height = numberIn(dict, 'Height');
  // Segment header: number (4), flags (1), referred-to segments (1 or more), page (1 or 4), data length (4).
  let i = 0;
  while (i + 11 <= data.length) {
    const flags = data[i + 4]!;
    let p = i + 5;
    let referred = data[p]! >> 5;
    if (referred === 7) {
      const count = u32(data, p) & 0x1fffffff;
      p += 4 + Math.ceil((count + 1) / 8);
      referred = count;
    } else p += 1;
    const number = u32(data, i);
    p += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4);
    p += flags & 0x40 ? 4 : 1;
    if (p + 4 > data.length) break;
    const length = u32(data, p);
    p += 4;
    if ((flags & 0x3f) === 48 && p + 8 <= data.length) {
      width = Math.max(width, u32(data, p));
      const h = u32(data, p + 4);
      if (h !== 0xffffffff) height = Math.max(height, h);
    }
    if (length === 0xffffffff) break; // a generic region of unknown length: the rest is data
    i = p + length;
  }
  return Math.ceil(width / 8) * height;
}

/** Bytes of a 1-bit CCITT image: the larger of the dictionary's size and `/DecodeParms` `/Columns` × `/Rows`. */
export function ccittBytes(
  dict: DictLike | undefined,
  params: { Columns?: unknown; Rows?: unknown } | undefined,
): number {
  const width = Math.max(numberIn(dict, 'Width'), Number(params?.Columns) || 0);
  const height = Math.max(numberIn(dict, 'Height'), Number(params?.Rows) || 0);
  return Math.ceil(width / 8) * height;
}

function numberIn(dict: DictLike | undefined, ...keys: string[]): number {
  const value = dict ? safeGet(dict, ...keys) : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** `dict.get` that cannot throw (an indirect value that does not resolve reads as undefined). */
export function safeGet(dict: DictLike, ...keys: string[]): unknown {
  try {
    return dict.get(...keys);
  } catch {
    return undefined;
  }
}
