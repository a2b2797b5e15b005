import { gunzipSync } from 'node:zlib';
import { seek } from './posting-bounds.ts';
import {
  ByteCursor,
  checksum,
  INLINE_POSTINGS_BYTES,
  LENGTH_BLOCK,
  lengthBlocks,
  type Postings,
  SegmentFormatError,
} from './segment-format.ts';
import { decodePostings } from './postings-codec.ts';
import type { ExcerptRange } from './segment-reading.ts';

/** The pieces of a ranged segment as they are unpacked: text blocks and dictionary blocks. */

/** A text block, unpacked: where each excerpt's UTF-8 text starts in `data`. */
export interface TextBlock {
  offsets: Uint32Array;
  data: Buffer;
}

/** Unpacks a text block's payload; `count` is how many excerpts it must hold. */
export function decodeTextBlock(compressed: Uint8Array, count: number): TextBlock {
  let data: Buffer;
  try {
    data = gunzipSync(compressed);
  } catch (error) {
    throw new SegmentFormatError(`knowledge segment text block is damaged (${String(error)})`);
  }
  if (data.length < 4 * (count + 2) || data.readUInt32LE(0) !== count)
    throw new SegmentFormatError('knowledge segment text block is damaged');
  const offsets = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i++) offsets[i] = data.readUInt32LE(4 * (i + 1));
  const body = data.subarray(4 * (count + 2));
  if (offsets[count] !== body.length) throw new SegmentFormatError('knowledge segment text block is damaged');
  return { offsets, data: body };
}

/**
 * A dictionary block, parsed: terms in order, each one's postings either inline (small ones) or where they are after
 * the block, with their checksum.
 */
export interface DictBlock {
  terms: string[];
  df: Uint32Array;
  offset: Float64Array;
  length: Uint32Array;
  crc: Uint32Array;
  inline: (Uint8Array | undefined)[];
}

export function decodeDict(raw: Uint8Array): DictBlock {
  const cursor = new ByteCursor(raw);
  const count = cursor.varint();
  if (count > raw.length) throw new SegmentFormatError('knowledge segment dictionary block is damaged');
  const block: DictBlock = {
    terms: [],
    df: new Uint32Array(count),
    offset: new Float64Array(count),
    length: new Uint32Array(count),
    crc: new Uint32Array(count),
    inline: [],
  };
  let offset = 0;
  let previous = new Uint8Array(0);
  for (let i = 0; i < count; i++) {
    const shared = cursor.varint();
    const rest = cursor.take(cursor.varint());
    if (shared > previous.length) throw new SegmentFormatError('knowledge segment dictionary block is damaged');
    const bytes = new Uint8Array(shared + rest.length);
    bytes.set(previous.subarray(0, shared));
    bytes.set(rest, shared);
    previous = bytes;
    block.terms.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    block.df[i] = cursor.varint();
    const length = cursor.varint();
    block.length[i] = length;
    if (length <= INLINE_POSTINGS_BYTES) {
      block.inline.push(cursor.take(length));
      continue;
    }
    block.inline.push(undefined);
    block.crc[i] = cursor.u32();
    block.offset[i] = offset;
    offset += length;
  }
  return block;
}

/** Where a term's postings are when they did not come with its dictionary block. */
export interface LongPostings {
  at: number;
  length: number;
  df: number;
  crc: number;
}

/** Long postings as read: checked against their entry and decoded, with what they hold in memory. */
export function longPostingsOf(
  raw: Uint8Array,
  { length, df, crc }: LongPostings,
  excerptCount: number,
): { value: Postings; bytes: number } {
  if (raw.length !== length || checksum(raw) !== crc)
    throw new SegmentFormatError('knowledge segment postings are damaged');
  return { value: decodePostings(raw, df, excerptCount), bytes: 5 * df + 64 };
}

/**
 * Short postings as they are stored, checked: kept so (two or three bytes a posting where decoded ones take five)
 * and decoded by each query, which costs less than the memory they would take decoded.
 */
export interface ShortPostings {
  raw: Uint8Array;
  df: number;
}

/** A term as a segment's dictionary gives it: its postings (short ones), where they are (long ones), or none. */
export type TermEntry = ShortPostings | LongPostings | undefined;

/**
 * `term`'s entry in dictionary block `block` (undefined: before the first block), with what it holds in memory;
 * `postingsAt` is where the block's postings start in the segment.
 */
export function termEntryOf(
  block: (DictBlock & { postings?: Uint8Array }) | undefined,
  term: string,
  postingsAt: number,
  excerptCount: number,
): { value: TermEntry; bytes: number } {
  const none = { value: undefined, bytes: 64 + 2 * term.length };
  if (!block) return none;
  const i = lastAtMost(block.terms.length, (j) => block.terms[j]!, term);
  if (i < 0 || block.terms[i] !== term) return none;
  const df = block.df[i]!;
  // A copy of the bytes is kept, not the block they came in.
  const short = (raw: Uint8Array) => ({ value: { raw: raw.slice(), df }, bytes: raw.length + 64 + 2 * term.length });
  const inline = block.inline[i];
  if (inline) {
    decodePostings(inline, df, excerptCount); // no checksum of their own: decoded once to be checked
    return short(inline);
  }
  const length = block.length[i]!;
  if (block.postings) {
    const raw = block.postings.subarray(block.offset[i]!, block.offset[i]! + length);
    if (raw.length !== length || checksum(raw) !== block.crc[i])
      throw new SegmentFormatError('knowledge segment postings are damaged');
    return short(raw);
  }
  return { value: { at: postingsAt + block.offset[i]!, length, df, crc: block.crc[i]! }, bytes: 96 + 2 * term.length };
}

/** The last index in a sorted list whose value is <= `target`, or -1. */
export function lastAtMost(count: number, valueAt: (i: number) => string | number, target: string | number): number {
  let lo = 0;
  let hi = count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (valueAt(mid) <= target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Per block of lengths of a segment of `excerptCount`, 1 when it holds an excerpt within two of a posting of `lists`
 * (of the postings inside `within` only, when given: ranges ascending, not overlapping): what scoring reads.
 */
export function wantedLengthBlocks(
  lists: readonly (Postings | undefined)[],
  excerptCount: number,
  within?: readonly ExcerptRange[],
): Uint8Array {
  const wanted = new Uint8Array(lengthBlocks(excerptCount));
  const last = excerptCount - 1;
  for (const list of lists) {
    if (!list) continue;
    const { excerpts } = list;
    let i = 0;
    for (const [from, to] of within ?? [[0, excerptCount] as const]) {
      i = seek(excerpts, i, from);
      let reached = -1; // every excerpt up to here is in a block already marked
      for (; i < excerpts.length && excerpts[i]! < to; i++) {
        const e = excerpts[i]!;
        const hi = Math.min(last, e + 2);
        if (hi <= reached) continue;
        for (let b = (Math.max(0, e - 2) / LENGTH_BLOCK) | 0; b <= ((hi / LENGTH_BLOCK) | 0); b++) wanted[b] = 1;
        reached = (((hi / LENGTH_BLOCK) | 0) + 1) * LENGTH_BLOCK - 1;
      }
    }
  }
  return wanted;
}
