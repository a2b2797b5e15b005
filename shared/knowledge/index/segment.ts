import { promisify } from 'node:util';
import { gunzipSync, gzip, gzipSync } from 'node:zlib';
import { documentTerms, type Language } from '../text/analyzer.ts';

/**
 * One immutable piece of a bot's search index: the excerpts of the files one ingest batch made searchable (or of
 * several earlier segments, merged), and the delete markers the batch or a delete wrote. A bot's index is the set of
 * segments its bot item lists (see ./knowledge-view.ts for how they are searched together).
 *
 * A segment stores term frequencies and excerpt lengths, not finished BM25 weights: idf and the average excerpt
 * length are computed at query time over the excerpts that are searchable across all of the bot's segments, so a
 * score never depends on how the index happens to be split into segments, or on what was deleted and not merged yet.
 *
 * The form is chosen for load time, which dominates a cold search: after one gunzip, every section is a typed-array
 * view over the same buffer and the vocabulary is a sorted UTF-8 blob searched in place (binary search), so loading
 * does no per-term or per-excerpt work. Excerpt texts are decoded only for the few excerpts returned.
 *
 * The excerpt texts, half of the bytes, are needed only for the few excerpts a search returns, so they are compressed
 * apart, in blocks of about 64 KB of whole excerpts, and a block is decompressed the first time one of its excerpts is
 * returned: a cold load decompresses only what scoring needs.
 *
 * Object: "SBKS" u32 formatVersion u32 coreLength, the core (gzip), then the text blocks (each gzip) end to end.
 * Core (little-endian, sections 4-byte aligned):
 *   "SBKS" u32 formatVersion u32 metaLength, meta JSON (padded; `blocks`: first excerpt and compressed size of each)
 *   Uint32 textOffsets[N+1]   byte offsets of each excerpt in the text blob
 *   Uint32 excerptDoc[N]      document (file) of each excerpt; a document's excerpts are consecutive
 *   Uint16 excerptLength[N]   index terms in each excerpt
 *   Uint32 termOffsets[T+1]   byte offsets of each term in the term blob (terms sorted by UTF-16 order)
 *   Uint32 postingStart[T+1]
 *   Uint32 postingExcerpt[P]  excerpt ids, ascending within a term
 *   Uint8 postingTf[P]        occurrences of the term in that excerpt (at most 255: BM25 has long saturated)
 *   Int8 vectors[N*dims]      optional: embeddings quantised to int8 (unit vectors × 127)
 *   u8 termBlob
 */

const gzipAsync = promisify(gzip);

const MAGIC = 0x53_4b_42_53; // "SBKS" read as little-endian u32
const FORMAT_VERSION = 3;
/** Text per compressed block (whole excerpts; a longer excerpt is a block of its own). */
const TEXT_BLOCK_BYTES = 64 * 1024;
const U16_MAX = 65_535;
const TF_MAX = 255;

/** A file's excerpts as ingestion hands them to a segment. */
export interface SegmentDocumentInput {
  /** Short stable key of the file name: a newer generation of the same key replaces an older one. */
  fileKey: string;
  fileName: string;
  generation: string;
  language: Language;
  excerpts: string[];
  /** Index terms of each excerpt (from {@link documentTerms}); computed when absent. */
  terms?: string[][];
  /** One unit-length embedding per excerpt, when an embeddings model is configured. */
  vectors?: Float32Array[];
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
}

/** Every generation of `fileKey` up to and including `generation` has left search (a delete, or a failed upload). */
export interface DeleteMarker {
  fileKey: string;
  generation: string;
  /** When the delete happened (epoch ms): merges keep a marker at least a while (see compaction.ts). */
  at?: number;
}

interface SegmentMeta {
  docs: SegmentDoc[];
  markers: DeleteMarker[];
  excerptCount: number;
  termCount: number;
  postingCount: number;
  termBlobBytes: number;
  textBlobBytes: number;
  /** The text blocks: first excerpt of each (ascending) and its compressed size. */
  blocks: { first: number; bytes: number }[];
  /** Embedding dimensions (0 = lexical only) and the model that made them. */
  dims: number;
  embeddingModel?: string;
  builtAt: string;
}

export interface SegmentOptions {
  markers?: DeleteMarker[];
  embeddingModel?: string;
  builtAt?: Date;
}

/** Builds a segment from documents (their order is kept) and delete markers. */
export function buildSegment(documents: SegmentDocumentInput[], options: SegmentOptions = {}): Uint8Array {
  const termIds = new Map<string, number>();
  const termNames: string[] = [];
  const pairTerm: number[] = [];
  const pairExcerpt: number[] = [];
  const pairTf: number[] = [];
  const lengths: number[] = [];
  const excerptDoc: number[] = [];
  const texts: string[] = [];
  const vectors: (Float32Array | undefined)[] = [];
  let dims = 0;
  const docs: SegmentDoc[] = [];
  documents.forEach((doc, d) => {
    const docTerms = doc.terms ?? doc.excerpts.map((t) => documentTerms(t, doc.language));
    docs.push({
      fileKey: doc.fileKey,
      fileName: doc.fileName,
      generation: doc.generation,
      language: doc.language,
      first: texts.length,
      count: doc.excerpts.length,
    });
    doc.excerpts.forEach((text, i) => {
      const excerpt = texts.length;
      texts.push(text);
      excerptDoc.push(d);
      const terms = docTerms[i]!;
      const ids = new Uint32Array(terms.length);
      for (let j = 0; j < terms.length; j++) {
        let id = termIds.get(terms[j]!);
        if (id === undefined) {
          id = termNames.length;
          termIds.set(terms[j]!, id);
          termNames.push(terms[j]!);
        }
        ids[j] = id;
      }
      lengths.push(ids.length);
      ids.sort(); // typed-array sort is numeric and native
      for (let j = 0; j < ids.length; ) {
        let k = j + 1;
        while (k < ids.length && ids[k] === ids[j]) k++;
        pairTerm.push(ids[j]!);
        pairExcerpt.push(excerpt);
        pairTf.push(k - j);
        j = k;
      }
      const v = doc.vectors?.[i];
      if (v) dims = v.length;
      vectors.push(v);
    });
  });

  // Terms in sorted order (UTF-16 code units, as the search's binary search compares): rank[firstSeenId] = sortedId.
  const order = [...termNames].sort().map((t) => termIds.get(t)!);
  const rank = new Uint32Array(termNames.length);
  order.forEach((oldId, newId) => {
    rank[oldId] = newId;
  });
  const T = termNames.length;
  const P = pairTerm.length;
  const postingStart = new Uint32Array(T + 1);
  for (let p = 0; p < P; p++) postingStart[rank[pairTerm[p]!]! + 1]!++;
  for (let t = 0; t < T; t++) postingStart[t + 1]! += postingStart[t]!;
  const fill = postingStart.slice(0, T);
  const postingExcerpt = new Uint32Array(P);
  const postingTf = new Uint8Array(P);
  // Pairs are in excerpt order, so each term's postings come out with ascending excerpt ids.
  for (let p = 0; p < P; p++) {
    const slot = fill[rank[pairTerm[p]!]!]!++;
    postingExcerpt[slot] = pairExcerpt[p]!;
    postingTf[slot] = Math.min(TF_MAX, pairTf[p]!);
  }
  return writeSegment(
    {
      docs,
      markers: options.markers ?? [],
      dims,
      embeddingModel: dims && options.embeddingModel ? options.embeddingModel : undefined,
      builtAt: options.builtAt,
    },
    {
      texts: utf8Blob(texts),
      excerptDoc: Uint32Array.from(excerptDoc),
      excerptLength: Uint16Array.from(lengths, (n) => Math.min(U16_MAX, n)),
      terms: utf8Blob(order.map((id) => termNames[id]!)),
      postingStart,
      postingExcerpt,
      postingTf,
      vectors: quantiseVectors(vectors, dims),
    },
  );
}

interface SegmentParts {
  texts: Blob8;
  excerptDoc: Uint32Array;
  excerptLength: Uint16Array;
  terms: Blob8;
  postingStart: Uint32Array;
  postingExcerpt: Uint32Array;
  postingTf: Uint8Array;
  vectors: Int8Array;
}

type SegmentHead = {
  docs: SegmentDoc[];
  markers: DeleteMarker[];
  dims: number;
  embeddingModel?: string;
  builtAt?: Date;
};

// Level 4: half the time of level 6 for a 3 % larger object (measured on 5 MB of text).
const GZIP = { level: 4 };

/** The segment object, compressed on this thread (small batch segments). */
function writeSegment(head: SegmentHead, parts: SegmentParts): Uint8Array {
  const blocks = textChunks(parts).map((chunk) => gzipSync(chunk, GZIP));
  return assemble(gzipSync(coreBytes(head, parts, blocks), GZIP), blocks);
}

/** The same, compressed on libuv's thread pool: a large merge does not hold the event loop for seconds. */
async function writeSegmentAsync(head: SegmentHead, parts: SegmentParts): Promise<Uint8Array> {
  const blocks: Uint8Array[] = [];
  for (const chunk of textChunks(parts)) blocks.push(await gzipAsync(chunk, GZIP));
  return assemble(await gzipAsync(coreBytes(head, parts, blocks), GZIP), blocks);
}

/** The excerpt texts in blocks: consecutive excerpts up to TEXT_BLOCK_BYTES (a longer one alone). */
function textChunks(parts: SegmentParts): Buffer[] {
  const chunks: Buffer[] = [];
  const offsets = parts.texts.offsets;
  const excerpts = offsets.length - 1;
  for (let first = 0; first < excerpts; ) {
    let end = first + 1;
    while (end < excerpts && offsets[end + 1]! - offsets[first]! <= TEXT_BLOCK_BYTES) end++;
    chunks.push(Buffer.concat(parts.texts.parts.slice(first, end)));
    first = end;
  }
  return chunks;
}

/** The uncompressed core: header, meta (with the compressed blocks' sizes), sections, vocabulary. */
function coreBytes(head: SegmentHead, parts: SegmentParts, compressedBlocks: Uint8Array[]): Uint8Array {
  const offsets = parts.texts.offsets;
  const excerpts = offsets.length - 1;
  const blocks: { first: number; bytes: number }[] = [];
  for (let first = 0, i = 0; first < excerpts; i++) {
    let end = first + 1;
    while (end < excerpts && offsets[end + 1]! - offsets[first]! <= TEXT_BLOCK_BYTES) end++;
    blocks.push({ first, bytes: compressedBlocks[i]!.length });
    first = end;
  }
  const meta: SegmentMeta = {
    docs: head.docs,
    markers: head.markers,
    excerptCount: parts.excerptDoc.length,
    termCount: parts.terms.offsets.length - 1,
    postingCount: parts.postingExcerpt.length,
    termBlobBytes: parts.terms.byteLength,
    textBlobBytes: parts.texts.byteLength,
    blocks,
    dims: head.dims,
    ...(head.embeddingModel ? { embeddingModel: head.embeddingModel } : {}),
    builtAt: (head.builtAt ?? new Date()).toISOString(),
  };
  const metaBytes = new TextEncoder().encode(JSON.stringify(meta));
  const sections: Uint8Array[] = [
    u8(parts.texts.offsets),
    u8(parts.excerptDoc),
    u8(parts.excerptLength),
    u8(parts.terms.offsets),
    u8(parts.postingStart),
    u8(parts.postingExcerpt),
    u8(parts.postingTf),
    u8(parts.vectors),
  ];
  const headerLength = align4(12 + metaBytes.length);
  let total = headerLength;
  for (const section of sections) total += align4(section.length);
  total += meta.termBlobBytes;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT_VERSION, true);
  view.setUint32(8, metaBytes.length, true);
  out.set(metaBytes, 12);
  let at = headerLength;
  for (const section of sections) {
    out.set(section, at);
    at += align4(section.length);
  }
  for (const b of parts.terms.parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** The object: magic, version, the compressed core's length, the core, the text blocks. */
function assemble(core: Uint8Array, blocks: Uint8Array[]): Uint8Array {
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT_VERSION, true);
  view.setUint32(8, core.length, true);
  return Buffer.concat([head, core, ...blocks]);
}

/** Strings (or byte ranges) laid end to end, with the byte offset of each (`offsets[n]` is the total). */
interface Blob8 {
  parts: Uint8Array[];
  offsets: Uint32Array;
  byteLength: number;
}

function utf8Blob(strings: string[]): Blob8 {
  const encoder = new TextEncoder();
  return bytesBlob(strings.map((s) => encoder.encode(s)));
}

function bytesBlob(parts: Uint8Array[]): Blob8 {
  const offsets = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  return { parts, offsets, byteLength: offsets[parts.length]! };
}

/** Unit vectors × 127 as int8, one row of `dims` per excerpt; an excerpt without (or with a wrong) vector stays 0. */
function quantiseVectors(vectors: (Float32Array | undefined)[], dims: number): Int8Array {
  const quantised = new Int8Array(dims ? vectors.length * dims : 0);
  if (!dims) return quantised;
  vectors.forEach((v, e) => {
    if (!v || v.length !== dims) return;
    for (let d = 0; d < dims; d++) quantised[e * dims + d] = Math.max(-127, Math.min(127, Math.round(v[d]! * 127)));
  });
  return quantised;
}

function u8(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** A loaded segment: typed-array views over one buffer. */
export class Segment {
  readonly docs: SegmentDoc[];
  readonly markers: DeleteMarker[];
  readonly excerptCount: number;
  readonly termCount: number;
  readonly dims: number;
  readonly embeddingModel: string | undefined;
  /** Uncompressed size, what the segment holds in memory. */
  readonly byteLength: number;
  readonly excerptDoc: Uint32Array;
  readonly excerptLength: Uint16Array;
  readonly postingStart: Uint32Array;
  readonly postingExcerpt: Uint32Array;
  readonly postingTf: Uint8Array;
  readonly vectors: Int8Array;
  private readonly textOffsets: Uint32Array;
  private readonly termOffsets: Uint32Array;
  private readonly termBlob: Buffer;
  private readonly blocks: { first: number; bytes: number }[];
  /** Where each block starts in `object`. */
  private readonly blockAt: number[];
  private readonly object: Uint8Array;
  private readonly decoded = new Map<number, Buffer>();

  private constructor(raw: Buffer, object: Uint8Array, blocksAt: number) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    if (raw.byteLength < 12 || view.getUint32(0, true) !== MAGIC) throw new Error('not a knowledge index segment');
    if (view.getUint32(4, true) !== FORMAT_VERSION)
      throw new Error(`unsupported knowledge segment format ${view.getUint32(4, true)}`);
    const metaLength = view.getUint32(8, true);
    const meta = JSON.parse(raw.toString('utf8', 12, 12 + metaLength)) as SegmentMeta;
    this.docs = meta.docs;
    this.markers = meta.markers;
    this.excerptCount = meta.excerptCount;
    this.termCount = meta.termCount;
    this.dims = meta.dims;
    this.embeddingModel = meta.embeddingModel;
    this.object = object;
    this.blocks = meta.blocks;
    this.blockAt = [];
    let blockAt = blocksAt;
    for (const b of meta.blocks) {
      this.blockAt.push(blockAt);
      blockAt += b.bytes;
    }
    this.byteLength = raw.byteLength + object.byteLength;
    const N = meta.excerptCount;
    const T = meta.termCount;
    const P = meta.postingCount;
    let at = raw.byteOffset + align4(12 + metaLength);
    const take = <A>(make: (buffer: ArrayBufferLike, offset: number, length: number) => A, n: number, size: number) => {
      const a = make(raw.buffer, at, n);
      at += align4(n * size);
      return a;
    };
    this.textOffsets = take((b, o, l) => new Uint32Array(b, o, l), N + 1, 4);
    this.excerptDoc = take((b, o, l) => new Uint32Array(b, o, l), N, 4);
    this.excerptLength = take((b, o, l) => new Uint16Array(b, o, l), N, 2);
    this.termOffsets = take((b, o, l) => new Uint32Array(b, o, l), T + 1, 4);
    this.postingStart = take((b, o, l) => new Uint32Array(b, o, l), T + 1, 4);
    this.postingExcerpt = take((b, o, l) => new Uint32Array(b, o, l), P, 4);
    this.postingTf = take((b, o, l) => new Uint8Array(b, o, l), P, 1);
    this.vectors = take((b, o, l) => new Int8Array(b, o, l), N * meta.dims, 1);
    this.termBlob = Buffer.from(raw.buffer, at, meta.termBlobBytes);
  }

  /**
   * Loads a segment from the bytes {@link buildSegment} produced: decompresses the core only (texts wait until they
   * are asked for). Throws when the bytes are not a segment.
   */
  static load(object: Uint8Array): Segment {
    const view = new DataView(object.buffer, object.byteOffset, object.byteLength);
    if (object.byteLength < 12 || view.getUint32(0, true) !== MAGIC) throw new Error('not a knowledge index segment');
    if (view.getUint32(4, true) !== FORMAT_VERSION)
      throw new Error(`unsupported knowledge segment format ${view.getUint32(4, true)}`);
    const coreLength = view.getUint32(8, true);
    if (12 + coreLength > object.byteLength) throw new Error('truncated knowledge index segment');
    let raw = gunzipSync(object.subarray(12, 12 + coreLength));
    // Typed-array views need 4-byte alignment; a pooled buffer may not start on one.
    if (raw.byteOffset % 4 !== 0) raw = Buffer.from(new Uint8Array(raw));
    return new Segment(raw, object, 12 + coreLength);
  }

  text(excerpt: number): string {
    const { text, start } = this.block(excerpt);
    return text.toString('utf8', this.textOffsets[excerpt]! - start, this.textOffsets[excerpt + 1]! - start);
  }

  /** The decompressed block holding `excerpt`, and where that block's text starts in the text blob. */
  private block(excerpt: number): { text: Buffer; start: number } {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.blocks[mid]!.first <= excerpt) lo = mid;
      else hi = mid - 1;
    }
    let text = this.decoded.get(lo);
    if (!text) {
      const at = this.blockAt[lo]!;
      text = gunzipSync(this.object.subarray(at, at + this.blocks[lo]!.bytes));
      this.decoded.set(lo, text);
    }
    return { text, start: this.textOffsets[this.blocks[lo]!.first]! };
  }

  term(id: number): string {
    return this.termBlob.toString('utf8', this.termOffsets[id]!, this.termOffsets[id + 1]!);
  }

  /** Term id by binary search over the sorted vocabulary; -1 when absent. */
  termId(term: string): number {
    let lo = 0;
    let hi = this.termCount - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.term(mid);
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** An excerpt's text as UTF-8 bytes (what a merge copies). */
  textBytes(excerpt: number): Uint8Array {
    const { text, start } = this.block(excerpt);
    return text.subarray(this.textOffsets[excerpt]! - start, this.textOffsets[excerpt + 1]! - start);
  }
}

/**
 * One segment holding the documents of `inputs` that `keep` accepts and the markers given, without analysing any
 * text again: vocabularies are merged, postings copied with new excerpt ids. The result equals
 * {@link buildSegment} over the kept documents in the same order.
 */
export async function mergeSegments(
  inputs: Segment[],
  keep: (segment: number, doc: number) => boolean,
  options: SegmentOptions = {},
): Promise<Uint8Array> {
  const docs: SegmentDoc[] = [];
  /** Per input: new excerpt id of each old excerpt (-1 = dropped). */
  const remap = inputs.map((s) => new Int32Array(s.excerptCount).fill(-1));
  const textParts: Uint8Array[] = [];
  const excerptDoc: number[] = [];
  const lengths: number[] = [];
  const vectorRows: (Int8Array | undefined)[] = [];
  const dims = inputs.find((s) => s.dims)?.dims ?? 0;
  const model = inputs.find((s) => s.dims)?.embeddingModel;
  inputs.forEach((segment, s) => {
    segment.docs.forEach((doc, d) => {
      if (!keep(s, d)) return;
      const newDoc = docs.length;
      docs.push({ ...doc, first: textParts.length });
      for (let e = doc.first; e < doc.first + doc.count; e++) {
        remap[s]![e] = textParts.length;
        textParts.push(segment.textBytes(e));
        excerptDoc.push(newDoc);
        lengths.push(segment.excerptLength[e]!);
        vectorRows.push(
          dims && segment.dims === dims && segment.embeddingModel === model
            ? segment.vectors.subarray(e * dims, (e + 1) * dims)
            : undefined,
        );
      }
    });
  });
  // Vocabulary: every term of a kept posting, sorted.
  const perTerm = new Map<string, { segment: number; id: number }[]>();
  inputs.forEach((segment, s) => {
    for (let id = 0; id < segment.termCount; id++) {
      let kept = false;
      for (let p = segment.postingStart[id]!; p < segment.postingStart[id + 1]!; p++) {
        if (remap[s]![segment.postingExcerpt[p]!]! >= 0) {
          kept = true;
          break;
        }
      }
      if (!kept) continue;
      const term = segment.term(id);
      const list = perTerm.get(term);
      if (list) list.push({ segment: s, id });
      else perTerm.set(term, [{ segment: s, id }]);
    }
  });
  const terms = [...perTerm.keys()].sort();
  const postingStart = new Uint32Array(terms.length + 1);
  const excerptsOut: number[] = [];
  const tfOut: number[] = [];
  for (const [t, term] of terms.entries()) {
    // Long merges give the event loop a turn now and then (other batches of the worker run meanwhile).
    if (t % 4096 === 4095) await new Promise((r) => setImmediate(r));
    // Inputs are laid out in order, so each input's postings, remapped, stay ascending.
    for (const { segment: s, id } of perTerm.get(term)!) {
      const segment = inputs[s]!;
      for (let p = segment.postingStart[id]!; p < segment.postingStart[id + 1]!; p++) {
        const e = remap[s]![segment.postingExcerpt[p]!]!;
        if (e < 0) continue;
        excerptsOut.push(e);
        tfOut.push(segment.postingTf[p]!);
      }
    }
    postingStart[t + 1] = excerptsOut.length;
  }
  const vectors = new Int8Array(dims ? vectorRows.length * dims : 0);
  if (dims) for (const [e, row] of vectorRows.entries()) if (row) vectors.set(row, e * dims);
  return writeSegmentAsync(
    { docs, markers: options.markers ?? [], dims, embeddingModel: model, builtAt: options.builtAt },
    {
      texts: bytesBlob(textParts),
      excerptDoc: Uint32Array.from(excerptDoc),
      excerptLength: Uint16Array.from(lengths),
      terms: utf8Blob(terms),
      postingStart,
      postingExcerpt: Uint32Array.from(excerptsOut),
      postingTf: Uint8Array.from(tfOut),
      vectors,
    },
  );
}
