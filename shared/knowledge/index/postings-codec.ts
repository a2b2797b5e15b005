import { type Postings, SegmentFormatError } from './segment-format.ts';

/**
 * Decodes `df` postings (varint gaps, then tf bytes); throws {@link SegmentFormatError} when they do not fit. The
 * gaps are read inline, not through a ByteCursor: every query decodes its terms' short postings again (they are kept
 * as stored), most gaps take one byte and nearly all the rest two.
 */
export function decodePostings(bytes: Uint8Array, df: number, excerptCount: number): Postings {
  const excerpts = new Uint32Array(df);
  const n = bytes.length;
  let at = 0;
  let e = 0;
  for (let i = 0; i < df; i++) {
    // Past the end, a continuation byte that is not there: the check below finds the postings short.
    let b = at < n ? bytes[at++]! : 0x80;
    let gap = b & 0x7f;
    for (let scale = 0x80; b >= 0x80; scale *= 0x80) {
      if (scale > 2 ** 35) throw new SegmentFormatError('knowledge segment block is damaged');
      if (at >= n) throw new SegmentFormatError('knowledge segment block is short');
      b = bytes[at++]!;
      gap += (b & 0x7f) * scale;
    }
    e += gap;
    excerpts[i] = e;
  }
  if (df && (e >= excerptCount || at + df !== n))
    throw new SegmentFormatError('knowledge segment postings are damaged');
  return { excerpts, tfs: bytes.slice(at, at + df) };
}
