import { crc32 } from 'node:zlib';
import type { Language } from '../text/analyzer.ts';

/**
 * The segment object, laid out to be read by byte range: a search fetches the small tail once, then only the
 * dictionary blocks and postings of its query's terms and the text blocks of the excerpts it returns; a merge reads
 * each region front to back. Every piece carries a checksum, so a piece damaged in storage is noticed when it is read.
 *
 *   header   "SBKS" u32 version (4) u64 0
 *   texts    per block of whole excerpts (about 64 KB of text): gzip(u32 count, u32 offsets[count+1], UTF-8 texts),
 *            then, with embeddings, the block's vectors (int8, count × dims)
 *   terms    per block of up to 128 terms (sorted by UTF-16 code units): the dictionary block (varint count, then per
 *            term: varint bytes shared with the previous term, varint bytes not shared, those UTF-8 bytes, varint df,
 *            varint postings bytes, then the postings themselves when they are at most 24 bytes, else the u32 CRC-32
 *            of the postings that follow the block), then the longer postings of those terms in order. Postings:
 *            varint excerpt id gaps (the first from 0), then one tf byte per posting
 *   lengths  per excerpt: index terms in it, checked per block of {@link LENGTH_BLOCK} excerpts; u16 each, or
 *            (format 6) u8 each in a block whose lengths are all under 256
 *   tail     u32 meta length, meta JSON (documents with their length sums, markers, counts, where the lengths are),
 *            then the block indexes (typed arrays, 8-byte aligned, see {@link TailLayout}), among them the shortest
 *            and the longest length of each block of lengths
 *   trailer  f64 tail offset, u32 tail length, u32 tail CRC-32, u32 version, "SBKT"
 *
 * Format 6 (this one) adds to format 5 the shortest and longest length of each block of {@link LENGTH_BLOCK} lengths,
 * in the tail: a query bounds every excerpt's score from above and below without reading a length, and reads the
 * lengths only of the blocks whose excerpts can still reach its top (./ranked-lengths.ts). And a block whose lengths
 * are all under 256 (an excerpt of the chunker has about 90 index terms) stores them in one byte each, halving what a
 * query whose common words reach every block reads; where each block starts is in the tail. Format 5 is read as
 * before.
 *
 * Format 5 differs from format 4 only in the lengths: format 4 has one checksum over all of them and no
 * sums, so opening one reads every excerpt's length (2 bytes per excerpt); format 5 keeps each document's length sums
 * (what the averages of BM25 need) in the tail and a checksum per block of lengths, so a query reads only the blocks
 * around its terms' postings. Format 4 is still read as it was; merges write format 5.
 *
 * Format 3 (one gzip core with the whole dictionary and postings, then the text blocks) is still read
 * (./legacy-segment.ts); merges rewrite it in this format.
 */
export const SEGMENT_MAGIC = 0x53_4b_42_53; // "SBKS" as a little-endian u32
/** Its last byte is not 0, so no format-3 object (whose last 4 bytes are a gzip length under 16 MB) ends with it. */
export const TRAILER_MAGIC = 0x54_4b_42_53; // "SBKT"
export const FORMAT_VERSION = 6;
/** The first format whose tail holds each block of lengths' shortest and longest. */
export const LENGTH_RANGE_FORMAT = 6;
/** The first format read by range (format 4: its lengths read whole when opened). */
export const RANGED_FORMAT = 4;
export const HEADER_BYTES = 16;
export const TRAILER_BYTES = 24;
/** Text per compressed block (whole excerpts; a longer excerpt is a block of its own). */
export const TEXT_BLOCK_BYTES = 64 * 1024;
/** A dictionary block closes at this many terms, or once its postings pass {@link TERM_BLOCK_POSTINGS_BYTES}. */
export const TERM_BLOCK_TERMS = 128;
export const TERM_BLOCK_POSTINGS_BYTES = 256 * 1024;
export const TF_MAX = 255;
/** Postings up to this many bytes live in their dictionary entry (a rare term costs no read of its own). */
export const INLINE_POSTINGS_BYTES = 24;
export const U16_MAX = 65_535;
/** Excerpt lengths per checked block (1 KB): what a query reads of the lengths around one posting. */
export const LENGTH_BLOCK = 512;

/** A segment's bytes are not what the writer stored: truncated, damaged, or not a segment at all. */
export class SegmentFormatError extends Error {
  override readonly name = 'SegmentFormatError';
  /** The segment object, once known. */
  key?: string;
}

/** A document (one generation of one file) inside a segment. */
export interface SegmentDoc {
  fileKey: string;
  fileName: string;
  generation: string;
  language: Language;
  /** Its first excerpt id in the segment, and how many it has. */
  first: number;
  count: number;
  /**
   * Format 5: the index terms of its excerpts summed, and of its excerpts' neighbourhoods (each excerpt with the
   * ones either side in the document), as BM25's average lengths count them.
   */
  lengthSum?: number;
  windowSum?: number;
}

/** Every generation of `fileKey` up to and including `generation` has left search (a delete, or a failed upload). */
export interface DeleteMarker {
  fileKey: string;
  generation: string;
  /** When the delete happened (epoch ms): merges keep a marker at least a while (see compaction.ts). */
  at?: number;
}

export interface SegmentMeta {
  docs: SegmentDoc[];
  markers: DeleteMarker[];
  excerptCount: number;
  termCount: number;
  postingCount: number;
  textBlocks: number;
  termBlocks: number;
  firstTermBytes: number;
  /** Embedding dimensions (0 = lexical only) and the model that made them. */
  dims: number;
  embeddingModel?: string;
  builtAt: string;
  lengthsAt: number;
  /** CRC-32 of all the lengths together. */
  lengthsCrc: number;
}

/** The block indexes of the tail, one entry per text block (B) and per term block (TB). */
export interface TailLayout {
  /** First excerpt of each text block; `textFirst[B]` = excerptCount. */
  textFirst: Uint32Array;
  textAt: Float64Array;
  /** Compressed text bytes of each block (its vectors follow them). */
  textBytes: Uint32Array;
  /** CRC-32 of each block's vectors (empty without embeddings). */
  vectorCrc: Uint32Array;
  /** Byte offsets of each block's first term in `firstTerms`. */
  firstTermOffsets: Uint32Array;
  dictAt: Float64Array;
  dictBytes: Uint32Array;
  dictCrc: Uint32Array;
  postingsBytes: Uint32Array;
  firstTerms: Uint8Array;
  /** Format 5: CRC-32 of each block of {@link LENGTH_BLOCK} lengths (empty in format 4). */
  lengthCrc: Uint32Array;
  /** Format 6: the shortest and the longest length in each block of {@link LENGTH_BLOCK} (empty before). */
  lengthMin: Uint16Array;
  lengthMax: Uint16Array;
  /** Format 6: where each block of lengths starts, from `lengthsAt`; the last entry is where they end (empty before). */
  lengthAt: Uint32Array;
}

export function checksum(bytes: Uint8Array): number {
  return crc32(bytes) >>> 0;
}

const align8 = (n: number) => (n + 7) & ~7;

/** The tail's bytes: meta JSON, then the block indexes. */
export function encodeTail(meta: SegmentMeta, layout: TailLayout): Uint8Array {
  const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
  const arrays: ArrayBufferView[] = [
    layout.textFirst,
    layout.textAt,
    layout.textBytes,
    layout.vectorCrc,
    layout.firstTermOffsets,
    layout.dictAt,
    layout.dictBytes,
    layout.dictCrc,
    layout.postingsBytes,
    layout.firstTerms,
    layout.lengthCrc,
    layout.lengthMin,
    layout.lengthMax,
    layout.lengthAt,
  ];
  let total = align8(4 + metaBytes.length);
  for (const a of arrays) total += align8(a.byteLength);
  const out = new Uint8Array(total);
  new DataView(out.buffer).setUint32(0, metaBytes.length, true);
  out.set(metaBytes, 4);
  let at = align8(4 + metaBytes.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align8(a.byteLength);
  }
  return out;
}

/** Blocks of lengths of a segment of `excerpts`. */
export const lengthBlocks = (excerpts: number) => Math.ceil(excerpts / LENGTH_BLOCK);

/** Where the lengths of block `b` are, from `lengthsAt`, and their bytes per length. */
export function lengthBlockBytes(layout: TailLayout, excerpts: number, b: number): { at: number; end: number } {
  if (layout.lengthAt.length) return { at: layout.lengthAt[b]!, end: layout.lengthAt[b + 1]! };
  return { at: 2 * b * LENGTH_BLOCK, end: 2 * Math.min(excerpts, (b + 1) * LENGTH_BLOCK) };
}

/** The lengths' bytes as stored: per block, one byte each when all are under 256 (format 6), else two. */
export function encodeLengths(lengths: Uint16Array): { bytes: Uint8Array; at: Uint32Array } {
  const blocks = lengthBlocks(lengths.length);
  const at = new Uint32Array(blocks + 1);
  const out = new Uint8Array(2 * lengths.length);
  let size = 0;
  for (let b = 0; b < blocks; b++) {
    at[b] = size;
    const block = lengths.subarray(b * LENGTH_BLOCK, (b + 1) * LENGTH_BLOCK);
    if (block.every((l) => l < 256)) {
      out.set(block, size);
      size += block.length;
    } else {
      out.set(new Uint8Array(block.buffer, block.byteOffset, block.byteLength), size);
      size += block.byteLength;
    }
  }
  at[blocks] = size;
  return { bytes: out.subarray(0, size), at };
}

/**
 * Parses a tail of format `version` (its checksum already checked); throws {@link SegmentFormatError} when it does
 * not add up.
 */
export function decodeTail(bytes: Uint8Array, version: number): { meta: SegmentMeta; layout: TailLayout } {
  // Typed views need aligned offsets: work on a copy that starts a buffer.
  const own = new Uint8Array(bytes.byteLength);
  own.set(bytes);
  const view = new DataView(own.buffer);
  try {
    const metaLength = view.getUint32(0, true);
    const meta = JSON.parse(Buffer.from(own.buffer, 4, metaLength).toString('utf8')) as SegmentMeta;
    const B = meta.textBlocks;
    const TB = meta.termBlocks;
    let at = align8(4 + metaLength);
    const take = <A>(make: new (b: ArrayBuffer, o: number, l: number) => A, n: number, size: number): A => {
      if (at + n * size > own.byteLength) throw new SegmentFormatError('knowledge segment tail is short');
      const a = new make(own.buffer, at, n);
      at += align8(n * size);
      return a;
    };
    const layout: TailLayout = {
      textFirst: take(Uint32Array, B + 1, 4),
      textAt: take(Float64Array, B, 8),
      textBytes: take(Uint32Array, B, 4),
      vectorCrc: take(Uint32Array, meta.dims ? B : 0, 4),
      firstTermOffsets: take(Uint32Array, TB + 1, 4),
      dictAt: take(Float64Array, TB, 8),
      dictBytes: take(Uint32Array, TB, 4),
      dictCrc: take(Uint32Array, TB, 4),
      postingsBytes: take(Uint32Array, TB, 4),
      firstTerms: take(Uint8Array, meta.firstTermBytes, 1),
      lengthCrc: take(Uint32Array, version >= 5 ? lengthBlocks(meta.excerptCount) : 0, 4),
      lengthMin: take(Uint16Array, version >= LENGTH_RANGE_FORMAT ? lengthBlocks(meta.excerptCount) : 0, 2),
      lengthMax: take(Uint16Array, version >= LENGTH_RANGE_FORMAT ? lengthBlocks(meta.excerptCount) : 0, 2),
      lengthAt: take(Uint32Array, version >= LENGTH_RANGE_FORMAT ? lengthBlocks(meta.excerptCount) + 1 : 0, 4),
    };
    if (version >= 5 && meta.docs.some((d) => d.lengthSum === undefined || d.windowSum === undefined))
      throw new SegmentFormatError('knowledge segment tail is damaged');
    if (layout.textFirst[B] !== meta.excerptCount) throw new SegmentFormatError('knowledge segment tail is damaged');
    return { meta, layout };
  } catch (error) {
    if (error instanceof SegmentFormatError) throw error;
    throw new SegmentFormatError(`knowledge segment tail is damaged (${String(error)})`);
  }
}

export function encodeTrailer(tailAt: number, tailLength: number, tailCrc: number): Uint8Array {
  const out = new Uint8Array(TRAILER_BYTES);
  const view = new DataView(out.buffer);
  view.setFloat64(0, tailAt, true);
  view.setUint32(8, tailLength, true);
  view.setUint32(12, tailCrc, true);
  view.setUint32(16, FORMAT_VERSION, true);
  view.setUint32(20, TRAILER_MAGIC, true);
  return out;
}

/**
 * The trailer at the end of `bytes` (the object's last bytes), or undefined when they are not a trailer (format 3).
 * Throws {@link SegmentFormatError} for a trailer of a format this code does not know.
 */
export function decodeTrailer(
  bytes: Uint8Array,
): { tailAt: number; tailLength: number; tailCrc: number; version: number } | undefined {
  if (bytes.byteLength < TRAILER_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - TRAILER_BYTES, TRAILER_BYTES);
  if (view.getUint32(20, true) !== TRAILER_MAGIC) return undefined;
  const version = view.getUint32(16, true);
  if (version < RANGED_FORMAT || version > FORMAT_VERSION)
    throw new SegmentFormatError(`unsupported knowledge segment format ${version}`);
  return {
    tailAt: view.getFloat64(0, true),
    tailLength: view.getUint32(8, true),
    tailCrc: view.getUint32(12, true),
    version,
  };
}

export function encodeHeader(): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, SEGMENT_MAGIC, true);
  view.setUint32(4, FORMAT_VERSION, true);
  return out;
}

/** A growable byte buffer for varint-encoded sections. */
export class ByteSink {
  bytes = new Uint8Array(1024);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  varint(value: number): void {
    this.room(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  u32(value: number): void {
    this.room(4);
    new DataView(this.bytes.buffer).setUint32(this.length, value >>> 0, true);
    this.length += 4;
  }

  append(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** A copy of what was written, and the sink emptied. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

/** Reads varints from `bytes` starting at `at`; throws {@link SegmentFormatError} past the end. */
export class ByteCursor {
  constructor(
    readonly bytes: Uint8Array,
    public at = 0,
  ) {}

  varint(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (this.at >= this.bytes.length) throw new SegmentFormatError('knowledge segment block is short');
      const b = this.bytes[this.at++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
      shift += 7;
      if (shift > 35) throw new SegmentFormatError('knowledge segment block is damaged');
    }
  }

  u32(): number {
    if (this.at + 4 > this.bytes.length) throw new SegmentFormatError('knowledge segment block is short');
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at, 4).getUint32(0, true);
    this.at += 4;
    return v;
  }

  take(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new SegmentFormatError('knowledge segment block is short');
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

/** One term's postings: excerpt ids ascending, and the term's occurrences in each. */
export interface Postings {
  excerpts: Uint32Array;
  tfs: Uint8Array;
  /** What their bounds are kept by (./posting-bounds.ts) when not this object: the bytes each query decodes again. */
  source?: object;
}
