import { gunzipSync } from 'node:zlib';
import { type DeleteMarker, type Postings, type SegmentDoc, SegmentFormatError } from './segment-format.ts';
import type { ExcerptBlock, PieceSource, RangeRead, SegmentReader, TextBlock } from './segment-reader.ts';

const MAGIC = 0x53_4b_42_53;
export const LEGACY_FORMAT = 3;

interface LegacyMeta {
  docs: SegmentDoc[];
  markers: DeleteMarker[];
  excerptCount: number;
  termCount: number;
  postingCount: number;
  termBlobBytes: number;
  blocks: { first: number; bytes: number }[];
  dims: number;
  embeddingModel?: string;
}

/**
 * A segment written before segments were read by range (format 3): "SBKS" u32 3 u32 coreLength, a gzip core with
 * the dictionary, postings, lengths and vectors, then the text blocks (each gzip). Its core is read and held whole,
 * as before; its text blocks are fetched by range like the new format's. The next merge rewrites it in format 4, so
 * no file needs uploading again.
 */
export class LegacySegment implements SegmentReader {
  readonly format = LEGACY_FORMAT;
  readonly docs: SegmentDoc[];
  readonly markers: DeleteMarker[];
  readonly excerptCount: number;
  readonly dims: number;
  readonly embeddingModel: string | undefined;
  readonly memoryBytes: number;
  private readonly termCount: number;
  private readonly textOffsets: Uint32Array;
  private readonly excerptLength: Uint16Array;
  private readonly termOffsets: Uint32Array;
  private readonly postingStart: Uint32Array;
  private readonly postingExcerpt: Uint32Array;
  private readonly postingTf: Uint8Array;
  private readonly vectors: Int8Array;
  private readonly termBlob: Buffer;
  private readonly blocks: { first: number; bytes: number }[];
  private readonly blockAt: number[] = [];

  private constructor(
    readonly key: string,
    raw: Buffer,
    blocksAt: number,
    private readonly read: RangeRead,
    private readonly pieces: PieceSource,
  ) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    if (raw.byteLength < 12 || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== LEGACY_FORMAT)
      throw new SegmentFormatError('knowledge segment core is damaged');
    const metaLength = view.getUint32(8, true);
    let meta: LegacyMeta;
    try {
      meta = JSON.parse(raw.toString('utf8', 12, 12 + metaLength)) as LegacyMeta;
    } catch {
      throw new SegmentFormatError('knowledge segment core is damaged');
    }
    this.docs = meta.docs;
    this.markers = meta.markers;
    this.excerptCount = meta.excerptCount;
    this.termCount = meta.termCount;
    this.dims = meta.dims;
    this.embeddingModel = meta.embeddingModel;
    this.blocks = meta.blocks;
    let at = blocksAt;
    for (const b of meta.blocks) {
      this.blockAt.push(at);
      at += b.bytes;
    }
    this.memoryBytes = raw.byteLength;
    const N = meta.excerptCount;
    const T = meta.termCount;
    let offset = raw.byteOffset + ((12 + metaLength + 3) & ~3);
    const take = <A>(make: new (b: ArrayBufferLike, o: number, l: number) => A, n: number, size: number) => {
      if (offset - raw.byteOffset + n * size > raw.byteLength)
        throw new SegmentFormatError('knowledge segment core is short');
      const a = new make(raw.buffer, offset, n);
      offset += (n * size + 3) & ~3;
      return a;
    };
    this.textOffsets = take(Uint32Array, N + 1, 4);
    take(Uint32Array, N, 4); // each excerpt's document: the documents' ranges say the same
    this.excerptLength = take(Uint16Array, N, 2);
    this.termOffsets = take(Uint32Array, T + 1, 4);
    this.postingStart = take(Uint32Array, T + 1, 4);
    this.postingExcerpt = take(Uint32Array, meta.postingCount, 4);
    this.postingTf = take(Uint8Array, meta.postingCount, 1);
    this.vectors = take(Int8Array, N * meta.dims, 1);
    if (offset - raw.byteOffset + meta.termBlobBytes > raw.byteLength)
      throw new SegmentFormatError('knowledge segment core is short');
    this.termBlob = Buffer.from(raw.buffer, offset, meta.termBlobBytes);
  }

  /** `head` is the object's first 12 bytes. */
  static async open(key: string, head: Uint8Array, read: RangeRead, pieces: PieceSource): Promise<LegacySegment> {
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    if (head.byteLength < 12 || view.getUint32(0, true) !== MAGIC)
      throw new SegmentFormatError('not a knowledge index segment');
    if (view.getUint32(4, true) !== LEGACY_FORMAT)
      throw new SegmentFormatError(`unsupported knowledge segment format ${view.getUint32(4, true)}`);
    const coreLength = view.getUint32(8, true);
    const core = await read(12, 12 + coreLength);
    if (core.length !== coreLength) throw new SegmentFormatError('knowledge segment core is short');
    let raw: Buffer;
    try {
      raw = gunzipSync(core);
    } catch (error) {
      throw new SegmentFormatError(`knowledge segment core is damaged (${String(error)})`);
    }
    // Typed-array views need 4-byte alignment; a pooled buffer may not start on one.
    if (raw.byteOffset % 4 !== 0) raw = Buffer.from(new Uint8Array(raw));
    return new LegacySegment(key, raw, 12 + coreLength, read, pieces);
  }

  async lengths(): Promise<Uint16Array> {
    return this.excerptLength;
  }

  searchLengths(): Promise<Uint16Array> {
    return this.lengths();
  }

  async coverLengths(): Promise<void> {}

  lengthsCovered(): boolean {
    return true;
  }

  readonly lengthFloors = undefined;

  lengthCeilings(): undefined {
    return undefined;
  }

  private termId(term: string): number {
    let lo = 0;
    let hi = this.termCount - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.termBlob.toString('utf8', this.termOffsets[mid]!, this.termOffsets[mid + 1]!);
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  async postings(terms: readonly string[]): Promise<(Postings | undefined)[]> {
    return terms.map((term) => {
      const id = this.termId(term);
      if (id < 0) return undefined;
      const start = this.postingStart[id]!;
      const end = this.postingStart[id + 1]!;
      return { excerpts: this.postingExcerpt.subarray(start, end), tfs: this.postingTf.subarray(start, end) };
    });
  }

  private blockOf(excerpt: number): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.blocks[mid]!.first <= excerpt) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private textBlock(b: number): Promise<TextBlock> {
    const at = this.blockAt[b]!;
    const bytes = this.blocks[b]!.bytes;
    const first = this.blocks[b]!.first;
    const end = b + 1 < this.blocks.length ? this.blocks[b + 1]!.first : this.excerptCount;
    return this.pieces.piece(
      `${this.key}#t${b}`,
      () => this.read(at, at + bytes),
      (raw) => {
        let data: Buffer;
        try {
          data = gunzipSync(raw);
        } catch (error) {
          throw new SegmentFormatError(`knowledge segment text block is damaged (${String(error)})`);
        }
        const start = this.textOffsets[first]!;
        const offsets = Uint32Array.from({ length: end - first + 1 }, (_, i) => this.textOffsets[first + i]! - start);
        if (offsets[end - first] !== data.length)
          throw new SegmentFormatError('knowledge segment text block is damaged');
        return { value: { offsets, data }, bytes: data.length + offsets.byteLength + 64 };
      },
    );
  }

  async texts(excerpts: readonly number[]): Promise<string[]> {
    return Promise.all(
      excerpts.map(async (e) => {
        const b = this.blockOf(e);
        const block = await this.textBlock(b);
        const i = e - this.blocks[b]!.first;
        return block.data.toString('utf8', block.offsets[i]!, block.offsets[i + 1]!);
      }),
    );
  }

  async forEachVectorBlock(visit: (first: number, rows: Int8Array) => void): Promise<void> {
    if (this.dims) visit(0, this.vectors);
  }

  async *excerptBlocks(): AsyncGenerator<ExcerptBlock> {
    for (let b = 0; b < this.blocks.length; b++) {
      const block = await this.textBlock(b);
      const first = this.blocks[b]!.first;
      const count = block.offsets.length - 1;
      const texts = Array.from({ length: count }, (_, i) =>
        block.data.subarray(block.offsets[i]!, block.offsets[i + 1]!),
      );
      yield {
        first,
        texts,
        ...(this.dims ? { vectors: this.vectors.slice(first * this.dims, (first + count) * this.dims) } : {}),
      };
    }
  }

  async *termPostings(): AsyncGenerator<{ term: string; postings: Postings }> {
    for (let id = 0; id < this.termCount; id++) {
      const start = this.postingStart[id]!;
      const end = this.postingStart[id + 1]!;
      yield {
        term: this.termBlob.toString('utf8', this.termOffsets[id]!, this.termOffsets[id + 1]!),
        postings: { excerpts: this.postingExcerpt.subarray(start, end), tfs: this.postingTf.subarray(start, end) },
      };
    }
  }
}
