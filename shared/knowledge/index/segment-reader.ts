import {
  checksum,
  type DeleteMarker,
  decodeTail,
  HEADER_BYTES,
  LENGTH_BLOCK,
  LENGTH_RANGE_FORMAT,
  lengthBlockBytes,
  lengthBlocks,
  type Postings,
  type SegmentDoc,
  SegmentFormatError,
  type SegmentMeta,
  type TailLayout,
} from './segment-format.ts';
import { decodePostings } from './postings-codec.ts';
import { type RangeRead, SequentialReader } from './sequential-reader.ts';
import {
  type DictBlock,
  decodeDict,
  decodeTextBlock,
  lastAtMost,
  longPostingsOf,
  termEntryOf,
  type TextBlock,
  wantedLengthBlocks,
} from './segment-blocks.ts';
import {
  derivedPiece,
  type ExcerptBlock,
  type ExcerptRange,
  type PieceSource,
  type SegmentReader,
} from './segment-reading.ts';

export type { RangeRead } from './sequential-reader.ts';
export type { TextBlock } from './segment-blocks.ts';
export type { ExcerptBlock, ExcerptRange, PieceSource, SegmentReader } from './segment-reading.ts';

/** A dictionary block is read with its postings when both together are at most this long. */
const BLOCK_READ_BYTES = 32 * 1024;
/** Blocks of lengths not needed but between needed ones are read with them when the gap is at most this many. */
const LENGTH_GAP_BLOCKS = 8;

/**
 * A segment of format 4 or 5 read by range: only the tail is held (and, format 5, the lengths read so far); everything
 * else is a piece fetched when needed.
 */
export class RangedSegment implements SegmentReader {
  readonly docs: SegmentDoc[];
  readonly markers: DeleteMarker[];
  readonly excerptCount: number;
  readonly dims: number;
  readonly embeddingModel: string | undefined;
  readonly memoryBytes: number;
  private readonly firstTerms: string[];
  /** Format 5: the lengths read so far, and per block of them 1 once read; the reads under way. */
  private partial?: Uint16Array;
  private readonly lengthRead: Uint8Array;
  private readonly lengthLoading: (Promise<void> | undefined)[] = [];
  private lengthBlocksRead = 0;
  /** Format 6, once asked for: each excerpt's length where read, else the longest of its block. */
  private ceilings?: Uint16Array;

  constructor(
    readonly key: string,
    readonly format: number,
    private readonly meta: SegmentMeta,
    private readonly layout: TailLayout,
    private readonly read: RangeRead,
    private readonly pieces: PieceSource,
    tailBytes: number,
    private lengthsGiven?: Uint8Array,
  ) {
    this.docs = meta.docs;
    this.markers = meta.markers;
    this.excerptCount = meta.excerptCount;
    this.dims = meta.dims;
    this.embeddingModel = meta.embeddingModel;
    const blob = Buffer.from(layout.firstTerms.buffer, layout.firstTerms.byteOffset, layout.firstTerms.byteLength);
    this.firstTerms = Array.from({ length: meta.termBlocks }, (_, b) =>
      blob.toString('utf8', layout.firstTermOffsets[b]!, layout.firstTermOffsets[b + 1]!),
    );
    const blocks = format >= 5 ? lengthBlocks(meta.excerptCount) : 0;
    this.lengthRead = new Uint8Array(blocks);
    // Format 6 holds the lengths' ceilings too, once a query has asked for them.
    const perExcerpt = format >= LENGTH_RANGE_FORMAT ? 4 : 2;
    this.memoryBytes =
      3 * tailBytes + 64 * meta.termBlocks + (blocks ? perExcerpt * meta.excerptCount + 9 * blocks : 0);
  }

  /** Parses a tail of format `version`; `lengths` are the lengths' bytes when the first read already brought them. */
  static fromTail(
    key: string,
    version: number,
    tail: Uint8Array,
    read: RangeRead,
    pieces: PieceSource,
    lengths?: Uint8Array,
  ): RangedSegment {
    const { meta, layout } = decodeTail(tail, version);
    return new RangedSegment(key, version, meta, layout, read, pieces, tail.length, lengths);
  }

  async lengths(): Promise<Uint16Array> {
    if (this.format >= 5) {
      await this.readLengthBlocks(new Uint8Array(this.lengthRead.length).fill(1));
      return this.partial!;
    }
    return this.wholeLengths();
  }

  async searchLengths(): Promise<Uint16Array> {
    if (this.format < 5) return this.wholeLengths();
    this.takeGiven();
    this.partial ??= new Uint16Array(this.excerptCount);
    return this.partial;
  }

  /** The lengths the opening read brought (a small segment's), checked and kept. */
  private takeGiven(): void {
    const given = this.lengthsGiven;
    if (!given || !this.lengthRead.length) return;
    this.takeLengths(0, this.lengthRead.length - 1, given);
    this.lengthsGiven = undefined;
  }

  get lengthFloors(): Uint16Array | undefined {
    return this.layout.lengthMin.length ? this.layout.lengthMin : undefined;
  }

  lengthCeilings(): Uint16Array | undefined {
    const { lengthMax } = this.layout;
    if (!lengthMax.length) return undefined;
    if (!this.ceilings) {
      this.takeGiven();
      const ceilings = new Uint16Array(this.excerptCount);
      for (let b = 0; b < lengthMax.length; b++)
        ceilings.fill(lengthMax[b]!, b * LENGTH_BLOCK, Math.min(this.excerptCount, (b + 1) * LENGTH_BLOCK));
      for (let b = 0; b < this.lengthRead.length; b++)
        if (this.lengthRead[b]) ceilings.set(this.lengthBlock(b), b * LENGTH_BLOCK);
      this.ceilings = ceilings;
    }
    return this.ceilings;
  }

  private lengthBlock(b: number): Uint16Array {
    return this.partial!.subarray(b * LENGTH_BLOCK, Math.min(this.excerptCount, (b + 1) * LENGTH_BLOCK));
  }

  async coverLengths(lists: readonly (Postings | undefined)[], within?: readonly ExcerptRange[]): Promise<void> {
    if (this.lengthBlocksRead === this.lengthRead.length) return;
    await this.readLengthBlocks(wantedLengthBlocks(lists, this.excerptCount, within));
  }

  lengthsCovered(lists: readonly (Postings | undefined)[]): boolean {
    if (this.lengthBlocksRead === this.lengthRead.length) return true;
    const wanted = wantedLengthBlocks(lists, this.excerptCount);
    for (let b = 0; b < wanted.length; b++) if (wanted[b] && !this.lengthRead[b]) return false;
    return true;
  }

  /**
   * Reads the blocks of lengths `wanted` marks that are not read yet, a request per run of them (small gaps read
   * through), sharing the reads already under way.
   */
  private async readLengthBlocks(wanted: Uint8Array): Promise<void> {
    this.takeGiven();
    this.partial ??= new Uint16Array(this.excerptCount);
    const waits = new Set<Promise<void>>();
    const blocks = wanted.length;
    for (let b = 0; b < blocks; ) {
      if (!wanted[b] || this.lengthRead[b]) {
        b++;
        continue;
      }
      const loading = this.lengthLoading[b];
      if (loading) {
        waits.add(loading);
        b++;
        continue;
      }
      // A run from b: on while blocks are wanted, or the next wanted one is close.
      let end = b;
      for (let x = b + 1; x < blocks && x - end <= LENGTH_GAP_BLOCKS; x++)
        if (wanted[x] && !this.lengthRead[x] && !this.lengthLoading[x]) end = x;
      waits.add(this.readLengthRun(b, end));
      b = end + 1;
    }
    await Promise.all(waits);
  }

  private readLengthRun(first: number, last: number): Promise<void> {
    const { lengthsAt, excerptCount } = this.meta;
    const start = lengthsAt + lengthBlockBytes(this.layout, excerptCount, first).at;
    const end = lengthsAt + lengthBlockBytes(this.layout, excerptCount, last).end;
    const run: Promise<void> = this.read(start, end)
      .then((raw) => {
        if (raw.length !== end - start) throw this.damaged('knowledge segment lengths are short');
        this.takeLengths(first, last, raw);
      })
      .finally(() => {
        for (let b = first; b <= last; b++) if (this.lengthLoading[b] === run) this.lengthLoading[b] = undefined;
      });
    for (let b = first; b <= last; b++) if (!this.lengthRead[b]) this.lengthLoading[b] ??= run;
    return run;
  }

  /** Checks the raw lengths of blocks `first..last` against their checksums and keeps them. */
  private takeLengths(first: number, last: number, raw: Uint8Array): void {
    this.partial ??= new Uint16Array(this.excerptCount);
    const partial = this.partial;
    const bytes = new Uint8Array(partial.buffer);
    const from = lengthBlockBytes(this.layout, this.excerptCount, first).at;
    for (let b = first; b <= last; b++) {
      const { at, end } = lengthBlockBytes(this.layout, this.excerptCount, b);
      const block = raw.subarray(at - from, end - from);
      if (checksum(block) !== this.layout.lengthCrc[b]) throw this.damaged('knowledge segment lengths are damaged');
      if (this.lengthRead[b]) continue;
      const count = Math.min(this.excerptCount, (b + 1) * LENGTH_BLOCK) - b * LENGTH_BLOCK;
      if (block.length === count)
        partial.set(block, b * LENGTH_BLOCK); // one byte per length
      else bytes.set(block, 2 * b * LENGTH_BLOCK);
      this.ceilings?.set(this.lengthBlock(b), b * LENGTH_BLOCK);
      this.lengthRead[b] = 1;
      this.lengthBlocksRead++;
    }
  }

  /** An error naming this segment (lengths are read outside the piece source, which names it for the rest). */
  private damaged(message: string): SegmentFormatError {
    const error = new SegmentFormatError(message);
    error.key = this.key;
    return error;
  }

  private async wholeLengths(): Promise<Uint16Array> {
    const { lengthsAt, excerptCount, lengthsCrc } = this.meta;
    const given = this.lengthsGiven;
    return this.pieces.piece(
      `${this.key}#lengths`,
      async () => given ?? this.read(lengthsAt, lengthsAt + 2 * excerptCount),
      (raw) => {
        if (raw.length !== 2 * excerptCount || checksum(raw) !== lengthsCrc)
          throw new SegmentFormatError('knowledge segment lengths are damaged');
        const own = new Uint16Array(excerptCount);
        new Uint8Array(own.buffer).set(raw);
        return { value: own, bytes: raw.length };
      },
    );
  }

  /**
   * Dictionary block `b`; when its postings are short too (most blocks: rare terms), they come in the same read, so a
   * query term costs one request, not two.
   */
  private dict(b: number): Promise<DictBlock & { postings?: Uint8Array }> {
    const at = this.layout.dictAt[b]!;
    const bytes = this.layout.dictBytes[b]!;
    const withPostings = bytes + this.layout.postingsBytes[b]! <= BLOCK_READ_BYTES;
    const end = at + bytes + (withPostings ? this.layout.postingsBytes[b]! : 0);
    return this.pieces.piece(
      `${this.key}#d${b}`,
      () => this.read(at, end),
      (raw) => {
        if (raw.length !== end - at) throw new SegmentFormatError('knowledge segment dictionary block is short');
        const head = raw.subarray(0, bytes);
        if (checksum(head) !== this.layout.dictCrc[b])
          throw new SegmentFormatError('knowledge segment dictionary block is damaged');
        const block = decodeDict(head);
        return {
          value: withPostings ? { ...block, postings: raw.slice(bytes) } : block,
          bytes: 4 * bytes + raw.length + 64,
        };
      },
      { transient: true },
    );
  }

  /**
   * Each term's postings. A term's entry (its postings when short, else where they are; none when the segment does
   * not hold it) is kept apart from its dictionary block, so a query asked again does not decode the block.
   */
  async postings(terms: readonly string[]): Promise<(Postings | undefined)[]> {
    return Promise.all(
      terms.map(async (term) => {
        const entry = await derivedPiece(this.pieces, `${this.key}#w${term}`, async () => {
          const b = lastAtMost(this.firstTerms.length, (i) => this.firstTerms[i]!, term);
          const at = b < 0 ? 0 : this.layout.dictAt[b]! + this.layout.dictBytes[b]!;
          return termEntryOf(b < 0 ? undefined : await this.dict(b), term, at, this.excerptCount);
        });
        if (!entry) return undefined;
        if ('raw' in entry) return { ...decodePostings(entry.raw, entry.df, this.excerptCount), source: entry.raw };
        // Too long to come with their dictionary block: a piece of their own.
        const read = () => this.read(entry.at, entry.at + entry.length);
        return this.pieces.piece(`${this.key}#p${entry.at}`, read, (raw) =>
          longPostingsOf(raw, entry, this.excerptCount),
        );
      }),
    );
  }

  private textBlockOf(excerpt: number): number {
    return lastAtMost(this.meta.textBlocks, (i) => this.layout.textFirst[i]!, excerpt);
  }

  private textBlock(b: number): Promise<TextBlock> {
    const at = this.layout.textAt[b]!;
    const bytes = this.layout.textBytes[b]!;
    const count = this.layout.textFirst[b + 1]! - this.layout.textFirst[b]!;
    return this.pieces.piece(
      `${this.key}#t${b}`,
      () => this.read(at, at + bytes),
      (raw) => {
        if (raw.length !== bytes) throw new SegmentFormatError('knowledge segment text block is short');
        const block = decodeTextBlock(raw, count);
        return { value: block, bytes: block.data.length + block.offsets.byteLength + 64 };
      },
      { transient: true },
    );
  }

  /** The excerpts' texts, each kept apart from its text block once read (a block holds some 60 excerpts). */
  async texts(excerpts: readonly number[]): Promise<string[]> {
    return Promise.all(
      excerpts.map((e) =>
        derivedPiece(this.pieces, `${this.key}#x${e}`, async () => {
          const b = this.textBlockOf(e);
          const block = await this.textBlock(b);
          const i = e - this.layout.textFirst[b]!;
          const text = block.data.toString('utf8', block.offsets[i]!, block.offsets[i + 1]!);
          return { value: text, bytes: 2 * text.length + 64 };
        }),
      ),
    );
  }

  async forEachVectorBlock(visit: (first: number, rows: Int8Array) => void): Promise<void> {
    if (!this.dims) return;
    for (let b = 0; b < this.meta.textBlocks; b++) {
      const first = this.layout.textFirst[b]!;
      const bytes = (this.layout.textFirst[b + 1]! - first) * this.dims;
      const at = this.layout.textAt[b]! + this.layout.textBytes[b]!;
      const rows = await this.pieces.piece(
        `${this.key}#v${b}`,
        () => this.read(at, at + bytes),
        (raw) => {
          if (raw.length !== bytes || checksum(raw) !== this.layout.vectorCrc[b])
            throw new SegmentFormatError('knowledge segment vectors are damaged');
          return { value: new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength), bytes };
        },
      );
      visit(first, rows);
    }
  }

  async *excerptBlocks(): AsyncGenerator<ExcerptBlock> {
    const { textBlocks, termBlocks, lengthsAt } = this.meta;
    const end = termBlocks ? this.layout.dictAt[0]! : lengthsAt;
    const reader = new SequentialReader(this.read, HEADER_BYTES, end);
    for (let b = 0; b < textBlocks; b++) {
      const first = this.layout.textFirst[b]!;
      const count = this.layout.textFirst[b + 1]! - first;
      const block = decodeTextBlock(await reader.take(this.layout.textBytes[b]!), count);
      const texts = Array.from({ length: count }, (_, i) =>
        block.data.subarray(block.offsets[i]!, block.offsets[i + 1]!),
      );
      let vectors: Int8Array | undefined;
      if (this.dims) {
        const raw = await reader.take(count * this.dims);
        if (checksum(raw) !== this.layout.vectorCrc[b])
          throw new SegmentFormatError('knowledge segment vectors are damaged');
        vectors = new Int8Array(raw.slice().buffer);
      }
      yield { first, texts, ...(vectors ? { vectors } : {}) };
    }
  }

  async *termPostings(): AsyncGenerator<{ term: string; postings: Postings }> {
    const { termBlocks } = this.meta;
    if (!termBlocks) return;
    const start = this.layout.dictAt[0]!;
    const reader = new SequentialReader(this.read, start, this.meta.lengthsAt);
    for (let b = 0; b < termBlocks; b++) {
      const raw = await reader.take(this.layout.dictBytes[b]!);
      if (checksum(raw) !== this.layout.dictCrc[b])
        throw new SegmentFormatError('knowledge segment dictionary block is damaged');
      const block = decodeDict(raw);
      for (let i = 0; i < block.terms.length; i++) {
        let bytes = block.inline[i];
        if (!bytes) {
          bytes = await reader.take(block.length[i]!);
          if (checksum(bytes) !== block.crc[i]) throw new SegmentFormatError('knowledge segment postings are damaged');
        }
        yield { term: block.terms[i]!, postings: decodePostings(bytes, block.df[i]!, this.excerptCount) };
      }
    }
  }
}
