import { queryTerms } from '../text/analyzer.ts';
import {
  BM25_B,
  BM25_K1,
  RANKING_DEFAULTS,
  type RankingOptions,
  rankBm25,
  type ScoredExcerpt,
  type ScoringSegment,
  TopExcerpts,
} from './bm25.ts';
import type { DeleteMarker, SegmentDoc } from './segment-format.ts';
import type { SegmentReader } from './segment-reader.ts';

/**
 * A bot's searchable knowledge at one instant: the segments its bot item lists, searched as one index.
 *
 * Which document is searchable is decided here, from the segments alone, so one read of the bot item gives one
 * consistent state: of all the documents (file generations) with the same file key, only the newest generation is
 * searchable (a tie, the same generation published twice, goes to the newer segment), and only when no delete
 * marker covers it. A replacement therefore swaps the old version for the new one in the same publish, and a file is
 * never half there: a segment arrives whole with all of a batch's excerpts.
 *
 * Ranking is BM25 over excerpts (./bm25.ts), with idf and the average excerpt length taken over the searchable
 * excerpts of every segment, at query time. Excerpts, not whole files, are the unit the statistics count: bots hold
 * few long files as often as many short ones, and file-level statistics collapse on long files (measured:
 * bench/retrieval.ts, the long-file rows; bench/history/2026-11-knowledge-at-scale.md). On top: a word the query
 * repeats counts each time; each excerpt is also scored as the middle of its neighbourhood; the top K skips an
 * excerpt whose neighbourhood overlaps a chosen one's
 * (within two excerpts of it in the same file: neighbours share the chunker's overlap and usually the same passage),
 * so one passage does not fill every slot, while distant sections of one long file still come through; skipped
 * excerpts fill what is left when there are not enough others (a search restricted to one file still gets its K).
 *
 * The view holds each segment's documents and 4 bytes per excerpt (length, searchable, same file as the next);
 * postings and texts are fetched per query through the segments' readers and their caches.
 */
export { BM25_B, BM25_K1, type RankingOptions, type ScoredExcerpt };

/**
 * Chosen excerpts' neighbourhoods (each excerpt and the ones either side) do not overlap: an excerpt within two of a
 * chosen one in the same file waits.
 */
const DIVERSITY_SPREAD = 2;

/**
 * A segment as the bot item lists it, opened. Ids are time-ordered: a later segment has a greater id. Without
 * `lengths` the segment could not be read past its tail: its documents and markers still decide which versions are
 * searchable, but its excerpts are not searched.
 */
export interface LoadedSegment {
  id: string;
  segment: SegmentReader;
  lengths?: Uint16Array;
}

/** A document of the view: where it is, and whether it is the searchable version of its file. */
export interface ViewDoc extends SegmentDoc {
  segment: number;
  live: boolean;
}

export class KnowledgeView {
  readonly segments: LoadedSegment[];
  /** Every document of every segment, searchable or not, in segment then document order. */
  readonly docs: ViewDoc[];
  /** Excerpts of all segments (view-wide ids run through the segments in order). */
  readonly excerptCount: number;
  /** Searchable excerpts, and the searchable files. */
  readonly liveExcerpts: number;
  readonly liveFiles: number;
  /** Delete markers of all segments: fileKey → the newest generation deleted. */
  readonly deleted: Map<string, string>;
  /** What the view itself holds in memory. */
  readonly memoryBytes: number;
  private readonly excerptBase: number[] = [];
  private readonly docBase: number[] = [];
  /** Per segment: searchable excerpts (absent: all of them), and 1 where the next excerpt is in the same file. */
  private readonly live: (Uint8Array | undefined)[] = [];
  private readonly sameNext: Uint8Array[] = [];
  private readonly avgLength: number;
  private readonly avgWindow: number;

  /** The view over opened segments, with the excerpt lengths search reads (see SegmentReader.searchLengths). */
  static async open(segments: { id: string; segment: SegmentReader }[]): Promise<KnowledgeView> {
    return new KnowledgeView(
      await Promise.all(segments.map(async (s) => ({ ...s, lengths: await s.segment.searchLengths() }))),
    );
  }

  constructor(segments: LoadedSegment[]) {
    this.segments = [...segments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.deleted = new Map();
    for (const { segment } of this.segments)
      for (const m of segment.markers) {
        const seen = this.deleted.get(m.fileKey);
        if (seen === undefined || seen < m.generation) this.deleted.set(m.fileKey, m.generation);
      }
    // Newest document per file key: greatest generation, then latest segment.
    const newest = new Map<string, number>();
    this.docs = [];
    let excerpts = 0;
    this.segments.forEach(({ segment }, s) => {
      this.excerptBase.push(excerpts);
      this.docBase.push(this.docs.length);
      excerpts += segment.excerptCount;
      for (const doc of segment.docs) {
        const at = this.docs.length;
        this.docs.push({ ...doc, segment: s, live: false });
        const seen = newest.get(doc.fileKey);
        if (seen === undefined || this.docs[seen]!.generation <= doc.generation) newest.set(doc.fileKey, at);
      }
    });
    this.excerptCount = excerpts;
    let liveFiles = 0;
    for (const [fileKey, at] of newest) {
      const doc = this.docs[at]!;
      const gone = this.deleted.get(fileKey);
      if ((gone !== undefined && gone >= doc.generation) || !this.segments[doc.segment]!.lengths) continue;
      doc.live = true;
      liveFiles++;
    }
    this.liveFiles = liveFiles;

    let liveExcerpts = 0;
    let lengthSum = 0;
    let windowSum = 0;
    let bytes = 0;
    this.segments.forEach(({ segment, lengths }, s) => {
      const n = segment.excerptCount;
      const sameNext = new Uint8Array(n);
      const docs = this.docs.slice(this.docBase[s]!, this.docBase[s]! + segment.docs.length);
      const allLive = docs.every((d) => d.live);
      const live = allLive ? undefined : new Uint8Array(n);
      for (const doc of docs) {
        const end = doc.first + doc.count;
        sameNext.fill(1, doc.first, Math.max(doc.first, end - 1));
        if (!doc.live || !lengths) continue;
        live?.fill(1, doc.first, end);
        if (doc.lengthSum !== undefined && doc.windowSum !== undefined) {
          // Format 5 keeps the sums: the lengths themselves are read only around a query's postings.
          liveExcerpts += doc.count;
          lengthSum += doc.lengthSum;
          windowSum += doc.windowSum;
          continue;
        }
        for (let e = doc.first; e < end; e++) {
          liveExcerpts++;
          lengthSum += lengths[e]!;
          let w = lengths[e]!;
          if (e > doc.first) w += lengths[e - 1]!;
          if (e < end - 1) w += lengths[e + 1]!;
          windowSum += w;
        }
      }
      this.live.push(live);
      this.sameNext.push(sameNext);
      bytes += 2 * n + (live ? 2 * n : n) + 200 * docs.length;
    });
    this.liveExcerpts = liveExcerpts;
    this.avgLength = liveExcerpts ? lengthSum / liveExcerpts || 1 : 1;
    this.avgWindow = liveExcerpts ? windowSum / liveExcerpts || 1 : 1;
    this.memoryBytes = bytes;
  }

  /** Whether document `doc` of segment `segment` (positions in {@link segments}) is searchable. */
  isLive(segment: number, doc: number): boolean {
    return this.docs[this.docBase[segment]! + doc]!.live;
  }

  /** The searchable documents, each file once. */
  liveDocs(): ViewDoc[] {
    return this.docs.filter((d) => d.live);
  }

  private segmentOf(excerpt: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.excerptBase[mid]! <= excerpt) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** View-wide index (in {@link docs}) of the document an excerpt belongs to; -1 outside the view. */
  docIndexOf(excerpt: number): number {
    if (excerpt < 0 || excerpt >= this.excerptCount) return -1;
    const s = this.segmentOf(excerpt);
    const local = excerpt - this.excerptBase[s]!;
    let lo = this.docBase[s]!;
    let hi = lo + this.segments[s]!.segment.docs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.docs[mid]!.first <= local) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The document an excerpt belongs to. */
  docOf(excerpt: number): ViewDoc {
    return this.docs[this.docIndexOf(excerpt)]!;
  }

  /** Which excerpt of its file this is (0 = the first). */
  positionInDoc(excerpt: number): number {
    const doc = this.docOf(excerpt);
    return excerpt - this.excerptBase[doc.segment]! - doc.first;
  }

  /** Per segment, the excerpts a search may return: searchable, of files `passes` accepts (undefined: all live). */
  private allowedIn(s: number, passes?: (fileName: string) => boolean): Uint8Array | undefined {
    if (!passes) return undefined;
    const n = this.segments[s]!.segment.excerptCount;
    const allowed = new Uint8Array(n);
    const base = this.docBase[s]!;
    for (let d = base; d < base + this.segments[s]!.segment.docs.length; d++) {
      const doc = this.docs[d]!;
      if (doc.live && passes(doc.fileName)) allowed.fill(1, doc.first, doc.first + doc.count);
    }
    return allowed;
  }

  /**
   * The `limit` best excerpts for `query` by BM25 (see ./bm25.ts), best first; only searchable excerpts of files
   * `passes` accepts (all when absent) are returned. Fetches the query terms' postings from every segment first.
   */
  async rank(
    query: string,
    options: { passes?: (fileName: string) => boolean; limit: number; ranking?: RankingOptions },
  ): Promise<ScoredExcerpt[]> {
    const terms = queryTerms(query);
    if (!terms.length || !this.liveExcerpts) return [];
    const variants = [...new Set(terms.flatMap((t) => t.variants))];
    const searched = this.segments.map((s, i) => ({ ...s, i })).filter((s) => s.lengths);
    // Lengths are read around every posting: ranking first over bounds (./ranked-lengths.ts) reads fewer of them but
    // costs more CPU than those bytes take to arrive (measured: docs/decisions.md, "Knowledge format 6").
    const fetched = await Promise.all(
      searched.map(async (s) => {
        const postings = await s.segment.postings(variants);
        await s.segment.coverLengths(postings);
        return postings;
      }),
    );
    const scoring: ScoringSegment[] = searched.map(({ segment, lengths, i }, k) => {
      const byTerm = new Map(variants.map((v, j) => [v, fetched[k]![j]]));
      const allowed = this.allowedIn(i, options.passes);
      return {
        base: this.excerptBase[i]!,
        excerptCount: segment.excerptCount,
        postings: terms.map((t) => t.variants.map((v) => byTerm.get(v))),
        lengths: lengths!,
        sameNext: this.sameNext[i]!,
        ...(this.live[i] ? { live: this.live[i] } : {}),
        ...(allowed ? { allowed } : {}),
      };
    });
    return rankBm25(
      scoring,
      terms,
      { liveExcerpts: this.liveExcerpts, avgLength: this.avgLength, avgWindow: this.avgWindow },
      options.ranking ?? {},
      options.limit,
    );
  }

  /**
   * The `k` best of `candidates`, best first (ties: earlier excerpt first). With diversity (the default) an excerpt
   * within two excerpts of a chosen one in the same file is passed over while others remain; the passed-over ones
   * fill the slots left, so a search restricted to one file still gets `k` excerpts. Considering the 4k best is
   * enough: every one of them is either chosen or waiting, so k of them always fill the slots.
   */
  select(candidates: readonly ScoredExcerpt[], k: number, options: RankingOptions = {}): ScoredExcerpt[] {
    const diversity = options.diversity ?? RANKING_DEFAULTS.diversity;
    const best = new TopExcerpts(diversity ? 4 * k : k);
    for (const c of candidates) best.push(c.excerpt, c.score);
    const ranked = best.sorted();
    if (!diversity) return ranked;
    const chosen = new Map<number, ScoredExcerpt>();
    const waiting: ScoredExcerpt[] = [];
    for (const r of ranked) {
      if (chosen.size === k) break;
      const d = this.docIndexOf(r.excerpt);
      let near = false;
      for (let x = r.excerpt - DIVERSITY_SPREAD; x <= r.excerpt + DIVERSITY_SPREAD && !near; x++)
        near = x !== r.excerpt && chosen.has(x) && this.docIndexOf(x) === d;
      if (near) waiting.push(r);
      else chosen.set(r.excerpt, r);
    }
    for (const r of waiting) {
      if (chosen.size === k) break;
      chosen.set(r.excerpt, r);
    }
    return [...chosen.values()].sort((a, b) => b.score - a.score || a.excerpt - b.excerpt);
  }

  /** The texts of some excerpts (view-wide ids), fetched from their segments. */
  async texts(excerpts: readonly number[]): Promise<string[]> {
    const bySegment = new Map<number, number[]>();
    excerpts.forEach((e, i) => {
      const s = this.segmentOf(e);
      bySegment.set(s, [...(bySegment.get(s) ?? []), i]);
    });
    const out: string[] = new Array(excerpts.length);
    await Promise.all(
      [...bySegment].map(async ([s, at]) => {
        const texts = await this.segments[s]!.segment.texts(at.map((i) => excerpts[i]! - this.excerptBase[s]!));
        at.forEach((i, j) => {
          out[i] = texts[j]!;
        });
      }),
    );
    return out;
  }

  /**
   * The `limit` searchable excerpts (of files `passes` accepts) most similar to the query embedding (cosine of unit
   * vectors, positive only), best first; none when no segment has vectors of `model` and its size.
   */
  async vectorRanking(
    queryVector: Float32Array,
    model: string,
    options: { passes?: (fileName: string) => boolean; limit: number },
  ): Promise<{ excerpt: number; similarity: number }[]> {
    const top = new TopExcerpts(options.limit);
    for (const [s, { segment, lengths }] of this.segments.entries()) {
      const dims = segment.dims;
      if (!lengths || !dims || dims !== queryVector.length || segment.embeddingModel !== model) continue;
      const allowed = this.allowedIn(s, options.passes) ?? this.live[s];
      const base = this.excerptBase[s]!;
      await segment.forEachVectorBlock((first, rows) => {
        const count = rows.length / dims;
        for (let i = 0; i < count; i++) {
          const e = first + i;
          if (allowed && !allowed[e]) continue;
          let dot = 0;
          const row = i * dims;
          for (let d = 0; d < dims; d++) dot += queryVector[d]! * rows[row + d]!;
          const similarity = dot / 127;
          if (similarity > 0) top.push(base + e, similarity);
        }
      });
    }
    return top.sorted().map((r) => ({ excerpt: r.excerpt, similarity: r.score }));
  }

  /** True when some searchable segment has vectors of `model`. */
  hasVectors(model: string): boolean {
    return this.segments.some(
      ({ segment, lengths }) => lengths && segment.dims > 0 && segment.embeddingModel === model,
    );
  }
}

/** The `k` best of `candidates` by score (ties: earlier excerpt first). */
export function topExcerpts(candidates: readonly number[], scores: ArrayLike<number>, k: number): ScoredExcerpt[] {
  const best = new TopExcerpts(k);
  for (const e of candidates) best.push(e, scores[e]!);
  return best.sorted();
}

/** Delete markers as one segment holds them: the newest per file key. */
export function newestMarkers(markers: Iterable<DeleteMarker>): DeleteMarker[] {
  const newest = new Map<string, string>();
  for (const m of markers) {
    const seen = newest.get(m.fileKey);
    if (seen === undefined || seen < m.generation) newest.set(m.fileKey, m.generation);
  }
  return [...newest].map(([fileKey, generation]) => ({ fileKey, generation }));
}
