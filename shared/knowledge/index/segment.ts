import { documentTerms, type Language } from '../text/analyzer.ts';
import { LegacySegment } from './legacy-segment.ts';
import {
  checksum,
  type DeleteMarker,
  decodeTail,
  decodeTrailer,
  FORMAT_VERSION,
  SegmentFormatError,
  TRAILER_BYTES,
} from './segment-format.ts';
import { type PieceSource, RangedSegment, type RangeRead, type SegmentReader } from './segment-reader.ts';
import { SegmentWriter } from './segment-writer.ts';

/**
 * One immutable piece of a bot's search index: the excerpts of the files one ingest batch made searchable (or of
 * several earlier segments, merged), and the delete markers the batch or a delete wrote. A bot's index is the set of
 * segments its bot item lists (see ./knowledge-view.ts for how they are searched together).
 *
 * A segment stores term frequencies and excerpt lengths, not finished BM25 weights: idf and the average excerpt
 * length are computed at query time over the excerpts that are searchable across all of the bot's segments, so a
 * score never depends on how the index happens to be split into segments, or on what was deleted and not merged yet.
 *
 * It is read by byte range (layout in ./segment-format.ts): a search holds each segment's small tail and fetches
 * only its query's dictionary blocks and postings and the text blocks of the excerpts it returns, so memory does not
 * grow with the bot's text.
 */
export type { DeleteMarker, SegmentDoc } from './segment-format.ts';
export type { SegmentReader } from './segment-reader.ts';

/** The format new segments are written in (a segment ref without one was written in format 3). */
export const SEGMENT_FORMAT = FORMAT_VERSION;
export { RANGED_FORMAT } from './segment-format.ts';

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

export interface SegmentOptions {
  markers?: DeleteMarker[];
  embeddingModel?: string;
  builtAt?: Date;
}

/** Builds a segment from documents (their order is kept) and delete markers: an ingest batch's, in memory. */
export function buildSegment(documents: SegmentDocumentInput[], options: SegmentOptions = {}): Uint8Array {
  const dims = documents.flatMap((d) => d.vectors ?? []).find((v) => v)?.length ?? 0;
  const chunks: Uint8Array[] = [];
  const writer = new SegmentWriter((c) => chunks.push(c), {
    markers: options.markers ?? [],
    dims,
    ...(options.embeddingModel ? { embeddingModel: options.embeddingModel } : {}),
    ...(options.builtAt ? { builtAt: options.builtAt } : {}),
  });
  // Each excerpt's distinct terms as (term id, excerpt, tf) pairs, in excerpt order.
  const termIds = new Map<string, number>();
  const termNames: string[] = [];
  const pairTerm: number[] = [];
  const pairExcerpt: number[] = [];
  const pairTf: number[] = [];
  const encoder = new TextEncoder();
  let excerpt = 0;
  for (const doc of documents) {
    const docTerms = doc.terms ?? doc.excerpts.map((t) => documentTerms(t, doc.language));
    writer.beginDocument({
      fileKey: doc.fileKey,
      fileName: doc.fileName,
      generation: doc.generation,
      language: doc.language,
    });
    doc.excerpts.forEach((text, i) => {
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
      ids.sort(); // typed-array sort is numeric and native
      for (let j = 0; j < ids.length; ) {
        let k = j + 1;
        while (k < ids.length && ids[k] === ids[j]) k++;
        pairTerm.push(ids[j]!);
        pairExcerpt.push(excerpt);
        pairTf.push(k - j);
        j = k;
      }
      writer.addExcerpt(encoder.encode(text), terms.length, quantise(doc.vectors?.[i], dims));
      excerpt++;
    });
  }
  // Terms in sorted order (UTF-16 code units, as readers compare), postings grouped by a counting sort: pairs are in
  // excerpt order, so each term's postings come out ascending.
  const order = [...termNames].sort().map((t) => termIds.get(t)!);
  const rank = new Uint32Array(termNames.length);
  order.forEach((id, r) => {
    rank[id] = r;
  });
  const start = new Uint32Array(order.length + 1);
  for (const t of pairTerm) start[rank[t]! + 1]!++;
  for (let r = 0; r < order.length; r++) start[r + 1]! += start[r]!;
  const fill = start.slice(0, order.length);
  const postingExcerpt = new Uint32Array(pairTerm.length);
  const postingTf = new Uint8Array(pairTerm.length);
  for (let p = 0; p < pairTerm.length; p++) {
    const slot = fill[rank[pairTerm[p]!]!]!++;
    postingExcerpt[slot] = pairExcerpt[p]!;
    postingTf[slot] = Math.min(255, pairTf[p]!);
  }
  order.forEach((id, r) => {
    writer.addTerm(
      termNames[id]!,
      postingExcerpt.subarray(start[r]!, start[r + 1]!),
      postingTf.subarray(start[r]!, start[r + 1]!),
    );
  });
  writer.finish();
  return Buffer.concat(chunks);
}

/** Unit vectors × 127 as int8; a missing (or wrongly sized) vector stays 0. */
function quantise(v: Float32Array | undefined, dims: number): Int8Array | undefined {
  if (!dims || !v || v.length !== dims) return undefined;
  const out = new Int8Array(dims);
  for (let d = 0; d < dims; d++) out[d] = Math.max(-127, Math.min(127, Math.round(v[d]! * 127)));
  return out;
}

/** A bucket that reads byte ranges (the knowledge object store's ranged half). */
export interface RangedObjects {
  /** `[start, end)` of the object (fewer bytes when it is shorter). */
  getRange(key: string, start: number, end: number): Promise<Uint8Array>;
  /** The object's last `length` bytes (all of it when shorter), and its size. */
  getTail(key: string, length: number): Promise<{ bytes: Uint8Array; size: number }>;
}

/** The first read of a segment: its trailer, its tail and usually its lengths, in one request. */
const OPEN_READ_BYTES = 128 * 1024;

/**
 * Opens a stored segment: one ranged read of its end (trailer, tail, and the excerpt lengths when they fit), a second
 * when the tail is larger. A format-3 object is recognised and read the old way. Throws {@link SegmentFormatError}
 * when the object is not a whole segment (truncated, damaged, something else).
 */
export async function openSegment(key: string, objects: RangedObjects, pieces: PieceSource): Promise<SegmentReader> {
  const read: RangeRead = (start, end) => objects.getRange(key, start, end);
  const { bytes: last, size } = await objects.getTail(key, OPEN_READ_BYTES);
  const trailer = decodeTrailer(last);
  if (!trailer) {
    const head = last.length >= size ? last.subarray(0, 12) : await read(0, 12);
    return LegacySegment.open(key, head, read, pieces);
  }
  const lastAt = size - last.length;
  const { tailAt, tailLength } = trailer;
  if (tailAt + tailLength + TRAILER_BYTES !== size) throw new SegmentFormatError('knowledge segment is truncated');
  // A tail longer than the first read: only its part before what that read brought is read again.
  const tail =
    tailAt >= lastAt
      ? last.subarray(tailAt - lastAt, tailAt - lastAt + tailLength)
      : concat(await read(tailAt, lastAt), last.subarray(0, tailAt + tailLength - lastAt), lastAt - tailAt);
  if (tail.length !== tailLength || checksum(tail) !== trailer.tailCrc)
    throw new SegmentFormatError('knowledge segment tail is damaged');
  const { meta, layout } = decodeTail(tail, trailer.version);
  const lengthsBytes = layout.lengthAt.length ? layout.lengthAt.at(-1)! : 2 * meta.excerptCount;
  const lengths =
    meta.lengthsAt >= lastAt
      ? last.subarray(meta.lengthsAt - lastAt, meta.lengthsAt - lastAt + lengthsBytes)
      : undefined;
  return RangedSegment.fromTail(key, trailer.version, tail, read, pieces, lengths);
}

/** `head` (expected `headLength` bytes: shorter when the object was cut) followed by `rest`. */
function concat(head: Uint8Array, rest: Uint8Array, headLength: number): Uint8Array {
  if (head.length !== headLength) return head;
  const out = new Uint8Array(head.length + rest.length);
  out.set(head);
  out.set(rest, head.length);
  return out;
}

/** Pieces kept in a plain map: for a segment held in memory (tests, benchmarks, a merge checking its output). */
export function unboundedPieces(): PieceSource {
  const held = new Map<string, Promise<unknown>>();
  return {
    piece<T>(id: string, fetch: () => Promise<Uint8Array>, decode: (raw: Uint8Array) => { value: T }) {
      let p = held.get(id) as Promise<T> | undefined;
      if (!p) {
        p = fetch().then((raw) => decode(raw).value);
        held.set(id, p);
        p.catch(() => held.delete(id));
      }
      return p;
    },
  };
}

/** A segment from its bytes (a test's or a benchmark's, or a batch just built). */
export function segmentFromBytes(bytes: Uint8Array, key = 'segment'): Promise<SegmentReader> {
  const objects: RangedObjects = {
    getRange: async (_k, start, end) => bytes.subarray(start, Math.min(end, bytes.length)),
    getTail: async (_k, length) => ({ bytes: bytes.subarray(Math.max(0, bytes.length - length)), size: bytes.length }),
  };
  return openSegment(key, objects, unboundedPieces());
}

export { SegmentFormatError };
