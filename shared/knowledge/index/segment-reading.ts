import type { DeleteMarker, Postings, SegmentDoc } from './segment-format.ts';

/** What search and merges read from a stored segment, whatever its format. */

/**
 * Where a reader's pieces come from: memory, the local disk, or the bucket (../piece-cache.ts). `decode` checks and
 * unpacks the raw bytes (throwing {@link SegmentFormatError} when they are damaged) and says what it holds in memory.
 */
export interface PieceSource {
  piece<T>(
    id: string,
    fetch: () => Promise<Uint8Array>,
    decode: (raw: Uint8Array) => { value: T; bytes: number },
    options?: PieceOptions,
  ): Promise<T>;
  /**
   * A small value worked out from pieces (a term's postings, an excerpt's text), kept in memory only, beside the
   * pieces and under the same bound: a query asked again finds what it used without its blocks being decoded again.
   * Absent: worked out every time.
   */
  derived?<T>(id: string, compute: () => Promise<{ value: T; bytes: number }>): Promise<T>;
}

export interface PieceOptions {
  /**
   * Read for the values worked out from it (see {@link PieceSource.derived}): a dictionary or text block, large beside
   * the entry or excerpt a query takes from it. Kept in memory as room allows, let go before any other piece.
   */
  transient?: boolean;
}

/** A value worked out from pieces, kept by `pieces` when it keeps such values, else worked out every time. */
export function derivedPiece<T>(
  pieces: PieceSource,
  id: string,
  compute: () => Promise<{ value: T; bytes: number }>,
): Promise<T> {
  return pieces.derived ? pieces.derived(id, compute) : compute().then((worked) => worked.value);
}

/** Excerpts `[from, to)` of a segment. */
export type ExcerptRange = readonly [from: number, to: number];

/** One block of a segment's excerpts in order, as a merge copies them. */
export interface ExcerptBlock {
  first: number;
  texts: Uint8Array[];
  /** count × dims int8 rows, when the segment has vectors. */
  vectors?: Int8Array;
}

/**
 * A stored segment as search and merges use it, whatever its format: the small parts (documents, markers, counts)
 * at once, the rest on demand. Format 4 reads pieces by byte range ({@link RangedSegment}); format 3 holds its
 * dictionary and postings in memory (./legacy-segment.ts).
 */
export interface SegmentReader {
  readonly key: string;
  readonly format: number;
  readonly docs: SegmentDoc[];
  readonly markers: DeleteMarker[];
  readonly excerptCount: number;
  readonly dims: number;
  readonly embeddingModel: string | undefined;
  /** What the reader itself keeps in memory (its pieces are counted by the cache they live in). */
  readonly memoryBytes: number;
  /** Index terms per excerpt, all of them. */
  lengths(): Promise<Uint16Array>;
  /**
   * The lengths search reads: all of them, or (format 5, whose documents carry their length sums) an array filled
   * only around the postings given to {@link coverLengths} so far, read by block when first needed.
   */
  searchLengths(): Promise<Uint16Array>;
  /**
   * Makes {@link searchLengths} hold every excerpt within two of a posting of `lists` (what scoring reads); with
   * `within`, only of the postings inside those ranges (ascending, not overlapping).
   */
  coverLengths(lists: readonly (Postings | undefined)[], within?: readonly ExcerptRange[]): Promise<void>;
  /** Whether {@link searchLengths} already holds what {@link coverLengths} would read for `lists`. */
  lengthsCovered(lists: readonly (Postings | undefined)[]): boolean;
  /** Format 6: the shortest length of each block of lengths (LENGTH_BLOCK excerpts), from the tail; else undefined. */
  readonly lengthFloors: Uint16Array | undefined;
  /**
   * Format 6: per excerpt, its length where {@link searchLengths} holds it, else the longest of its block (from the
   * tail): never below the excerpt's length; kept up to date as lengths are read. Undefined before format 6.
   */
  lengthCeilings(): Uint16Array | undefined;
  /** Each term's postings, undefined for a term the segment does not hold. */
  postings(terms: readonly string[]): Promise<(Postings | undefined)[]>;
  /** The texts of some excerpts. */
  texts(excerpts: readonly number[]): Promise<string[]>;
  /** Calls `visit` with each block's vector rows (count × dims int8) and its first excerpt. */
  forEachVectorBlock(visit: (first: number, rows: Int8Array) => void): Promise<void>;
  /** Every excerpt in order, block by block (a merge's first pass). */
  excerptBlocks(): AsyncGenerator<ExcerptBlock>;
  /** Every term in sorted order with its postings (a merge's second pass). */
  termPostings(): AsyncGenerator<{ term: string; postings: Postings }>;
}
