import { queryTerms } from '../text/analyzer.ts';
import type { DeleteMarker, Segment, SegmentDoc } from './segment.ts';

/**
 * A bot's searchable knowledge at one instant: the segments its bot item lists, searched as one index.
 *
 * Which document is searchable is decided here, from the segments alone, so one read of the bot item gives one
 * consistent state: of all the documents (file generations) with the same file key, only the newest generation is
 * searchable (a tie, the same generation published twice, goes to the newer segment), and only when no delete
 * marker covers it. A replacement therefore swaps the old version for the new one in the same publish, and a file is
 * never half there: a segment arrives whole with all of a batch's excerpts.
 *
 * Ranking is BM25 (k1 = 1.2, b = 0.75, the usual defaults) over excerpts, with idf and the average excerpt length
 * taken over the searchable excerpts of every segment, at query time. Excerpts, not whole files, are the unit the
 * statistics count: bots hold few long files as often as many short ones, and file-level statistics collapse on long
 * files (measured: bench/retrieval.ts, the long-file rows). Three choices on top (bench/history/2026-11-knowledge-at-scale.md):
 * - a word the query repeats counts each time (linear query term frequency, as Lucene and wink do);
 * - each excerpt is also scored as the middle of its neighbourhood (it and the excerpts either side in the same
 *   file), and the two scores are averaged, so an excerpt whose context also answers the query ranks above one that
 *   only mentions the words in passing, without the whole-file statistics that bury long files;
 * - the top K skips an excerpt whose neighbourhood overlaps a chosen one's (within two excerpts of it in the same
 *   file: neighbours share the chunker's overlap and usually the same passage), so one passage does not fill every
 *   slot, while distant sections of one long file still come through; skipped excerpts fill what is left when there
 *   are not enough others (a search restricted to one file still gets its K).
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** How the lexical ranking works; the defaults are the product's, the bench switches them one at a time. */
export interface RankingOptions {
  /** Count a repeated query word each time (default true). */
  queryTermFrequency?: boolean;
  /** Weight of the neighbourhood score in 0..1 (default 0.5: the mean of excerpt and neighbourhood); 0 = off. */
  context?: number;
  /** Skip an excerpt whose neighbourhood overlaps a chosen excerpt's, while others remain (default true). */
  diversity?: boolean;
}

/**
 * Chosen excerpts' neighbourhoods (each excerpt and the ones either side) do not overlap: an excerpt within two of a
 * chosen one in the same file waits.
 */
const DIVERSITY_SPREAD = 2;

const DEFAULTS: Required<RankingOptions> = { queryTermFrequency: true, context: 0.5, diversity: true };

/** A segment as the bot item lists it, loaded. Ids are time-ordered: a later segment has a greater id. */
export interface LoadedSegment {
  id: string;
  segment: Segment;
}

/** A document of the view: where it is, and whether it is the searchable version of its file. */
export interface ViewDoc extends SegmentDoc {
  segment: number;
  live: boolean;
}

/** One scored excerpt (a view-wide excerpt id), before its text is decoded. */
export interface ScoredExcerpt {
  excerpt: number;
  /** 0..1 */
  score: number;
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
  readonly byteLength: number;
  private readonly excerptBase: number[];
  private readonly docBase: number[];
  /** View-wide document of each excerpt. */
  private readonly excerptDoc: Uint32Array;
  private readonly live: Uint8Array;
  private readonly norm: Float32Array;
  private readonly windowNorm: Float32Array;
  // Scratch space for scoring (searches run one at a time on the event loop).
  private readonly scratchExcerpt: Uint32Array;
  private readonly scratchTf: Uint8Array;
  private readonly bestExcerpt: Float32Array;
  private readonly bestWindow: Float32Array;
  private readonly windowTf: Float32Array;
  /** 1 when the next excerpt belongs to the same document. */
  private readonly sameNext: Uint8Array;
  private readonly touched: Uint32Array;
  private readonly touchedWindows: Uint32Array;

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
    this.excerptBase = [];
    this.docBase = [];
    let excerpts = 0;
    let bytes = 0;
    this.segments.forEach(({ segment }, s) => {
      this.excerptBase.push(excerpts);
      this.docBase.push(this.docs.length);
      excerpts += segment.excerptCount;
      bytes += segment.byteLength;
      segment.docs.forEach((doc) => {
        const at = this.docs.length;
        this.docs.push({ ...doc, segment: s, live: false });
        const seen = newest.get(doc.fileKey);
        if (seen === undefined || this.docs[seen]!.generation <= doc.generation) newest.set(doc.fileKey, at);
      });
    });
    this.excerptCount = excerpts;
    this.byteLength = bytes;
    let liveFiles = 0;
    for (const [fileKey, at] of newest) {
      const doc = this.docs[at]!;
      const gone = this.deleted.get(fileKey);
      if (gone !== undefined && gone >= doc.generation) continue;
      doc.live = true;
      liveFiles++;
    }
    this.liveFiles = liveFiles;

    const N = excerpts;
    this.excerptDoc = new Uint32Array(N);
    this.live = new Uint8Array(N);
    const length = new Float32Array(N);
    const windowLength = new Float32Array(N);
    let liveExcerpts = 0;
    let lengthSum = 0;
    let windowSum = 0;
    this.docs.forEach((doc, d) => {
      const segment = this.segments[doc.segment]!.segment;
      const base = this.excerptBase[doc.segment]!;
      for (let e = doc.first; e < doc.first + doc.count; e++) {
        this.excerptDoc[base + e] = d;
        length[base + e] = segment.excerptLength[e]!;
      }
      if (!doc.live) return;
      for (let e = doc.first; e < doc.first + doc.count; e++) {
        const g = base + e;
        this.live[g] = 1;
        liveExcerpts++;
        lengthSum += length[g]!;
        let w = length[g]!;
        if (e > doc.first) w += segment.excerptLength[e - 1]!;
        if (e < doc.first + doc.count - 1) w += segment.excerptLength[e + 1]!;
        windowLength[g] = w;
        windowSum += w;
      }
    });
    this.liveExcerpts = liveExcerpts;
    const avg = liveExcerpts ? lengthSum / liveExcerpts || 1 : 1;
    const avgWindow = liveExcerpts ? windowSum / liveExcerpts || 1 : 1;
    this.norm = new Float32Array(N);
    this.windowNorm = new Float32Array(N);
    for (let e = 0; e < N; e++) {
      this.norm[e] = BM25_K1 * (1 - BM25_B + (BM25_B * length[e]!) / avg);
      this.windowNorm[e] = BM25_K1 * (1 - BM25_B + (BM25_B * windowLength[e]!) / avgWindow);
    }
    this.scratchExcerpt = new Uint32Array(N);
    this.scratchTf = new Uint8Array(N);
    this.bestExcerpt = new Float32Array(N);
    this.bestWindow = new Float32Array(N);
    this.windowTf = new Float32Array(N);
    this.sameNext = new Uint8Array(N);
    for (let e = 0; e + 1 < N; e++) this.sameNext[e] = this.excerptDoc[e] === this.excerptDoc[e + 1] ? 1 : 0;
    // A word's variants together touch each excerpt at most twice, each window at most 3 times per variant.
    this.touched = new Uint32Array(2 * N);
    this.touchedWindows = new Uint32Array(3 * N);
  }

  /** Whether document `doc` of segment `segment` (positions in {@link segments}) is searchable. */
  isLive(segment: number, doc: number): boolean {
    return this.docs[this.docBase[segment]! + doc]!.live;
  }

  /** The searchable documents, each file once. */
  liveDocs(): ViewDoc[] {
    return this.docs.filter((d) => d.live);
  }

  /** Which excerpts a search may return: the searchable ones of the files `passes` accepts (all when absent). */
  allowed(passes?: (fileName: string) => boolean): Uint8Array {
    if (!passes) return this.live;
    const allowed = new Uint8Array(this.excerptCount);
    this.docs.forEach((doc) => {
      if (!doc.live || !passes(doc.fileName)) return;
      const base = this.excerptBase[doc.segment]!;
      allowed.fill(1, base + doc.first, base + doc.first + doc.count);
    });
    return allowed;
  }

  /** The document an excerpt belongs to. */
  docOf(excerpt: number): ViewDoc {
    return this.docs[this.excerptDoc[excerpt]!]!;
  }

  /** Which excerpt of its file this is (0 = the first). */
  positionInDoc(excerpt: number): number {
    const doc = this.docOf(excerpt);
    return excerpt - this.excerptBase[doc.segment]! - doc.first;
  }

  text(excerpt: number): string {
    const s = this.segmentOf(excerpt);
    return this.segments[s]!.segment.text(excerpt - this.excerptBase[s]!);
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

  /**
   * BM25 of every allowed excerpt that holds a query word. Each query word counts by its best variant (Portuguese or
   * English term), times how often the query says it. Scores are divided by the query's ceiling (each word at its
   * largest possible weight, idf × (k1 + 1)), so they fall in 0..1 and say how much of the query an excerpt covers.
   * Returns every matching excerpt's score, unsorted; {@link select} picks the best.
   */
  score(query: string, allowed: Uint8Array, options: RankingOptions = {}): { scores: Float32Array; matched: number[] } {
    const qtf = options.queryTermFrequency ?? DEFAULTS.queryTermFrequency;
    const context = Math.min(1, Math.max(0, options.context ?? DEFAULTS.context));
    const terms = queryTerms(query);
    const scores = new Float32Array(this.excerptCount);
    const matched: number[] = [];
    if (!terms.length || !this.liveExcerpts) return { scores, matched };
    const windowScores = context > 0 ? new Float32Array(this.excerptCount) : undefined;
    const N = this.liveExcerpts;
    const missingIdf = Math.log(1 + (N + 0.5) / 0.5);
    const { scratchExcerpt, scratchTf, bestExcerpt, bestWindow, windowTf, live, norm, windowNorm, sameNext } = this;
    const { touched, touchedWindows } = this;
    // Every excerpt searchable and none filtered out (the common case): a term's df is its postings count.
    const everything = allowed === live && this.liveExcerpts === this.excerptCount;
    const seen = new Uint8Array(this.excerptCount);
    let ceiling = 0;
    for (const { variants, count } of terms) {
      const weight = qtf ? count : 1;
      let groupIdf = 0;
      let nTouched = 0;
      let nWindows = 0;
      for (const variant of variants) {
        let df = 0;
        let n = 0;
        const ranges: [Segment, number, number, number][] = [];
        this.segments.forEach(({ segment }, s) => {
          const id = segment.termId(variant);
          if (id < 0) return;
          const start = segment.postingStart[id]!;
          const end = segment.postingStart[id + 1]!;
          const base = this.excerptBase[s]!;
          if (everything) {
            df += end - start;
            ranges.push([segment, base, start, end]);
            return;
          }
          for (let p = start; p < end; p++) {
            const e = base + segment.postingExcerpt[p]!;
            if (!live[e]) continue;
            df++;
            if (!allowed[e]) continue;
            scratchExcerpt[n] = e;
            scratchTf[n] = segment.postingTf[p]!;
            n++;
          }
        });
        if (!df) continue;
        if (everything) {
          for (const [segment, base, start, end] of ranges)
            for (let p = start; p < end; p++) {
              scratchExcerpt[n] = base + segment.postingExcerpt[p]!;
              scratchTf[n] = segment.postingTf[p]!;
              n++;
            }
        }
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        if (idf > groupIdf) groupIdf = idf;
        const top = idf * (BM25_K1 + 1);
        for (let i = 0; i < n; i++) {
          const e = scratchExcerpt[i]!;
          const tf = scratchTf[i]!;
          const w = (top * tf) / (tf + norm[e]!);
          if (bestExcerpt[e] === 0) touched[nTouched++] = e;
          if (w > bestExcerpt[e]!) bestExcerpt[e] = w;
          if (!windowScores) continue;
          // The excerpt's occurrences count in its own neighbourhood and in its neighbours' (same file only).
          if (windowTf[e] === 0) touchedWindows[nWindows++] = e;
          windowTf[e]! += tf;
          if (e > 0 && sameNext[e - 1]) {
            if (windowTf[e - 1] === 0) touchedWindows[nWindows++] = e - 1;
            windowTf[e - 1]! += tf;
          }
          if (sameNext[e]) {
            if (windowTf[e + 1] === 0) touchedWindows[nWindows++] = e + 1;
            windowTf[e + 1]! += tf;
          }
        }
        if (!windowScores) continue;
        for (let i = 0; i < nWindows; i++) {
          const x = touchedWindows[i]!;
          const tf = windowTf[x]!;
          if (tf === 0) continue;
          const w = (top * tf) / (tf + windowNorm[x]!);
          if (w > bestWindow[x]!) bestWindow[x] = w;
          windowTf[x] = 0;
        }
      }
      ceiling += weight * (BM25_K1 + 1) * (groupIdf || missingIdf);
      for (let i = 0; i < nTouched; i++) {
        const e = touched[i]!;
        scores[e]! += weight * bestExcerpt[e]!;
        bestExcerpt[e] = 0;
        if (!seen[e]) {
          seen[e] = 1;
          matched.push(e);
        }
      }
      if (windowScores)
        for (let i = 0; i < nWindows; i++) {
          const x = touchedWindows[i]!;
          windowScores[x]! += weight * bestWindow[x]!;
          bestWindow[x] = 0;
        }
    }
    if (ceiling > 0)
      for (const e of matched) {
        const own = scores[e]! / ceiling;
        scores[e] = Math.min(1, windowScores ? (1 - context) * own + (context * windowScores[e]!) / ceiling : own);
      }
    return { scores, matched };
  }

  /**
   * The `k` best of `candidates`, best first (ties: earlier excerpt first). With diversity (the default) an excerpt
   * within two excerpts of a chosen one in the same file is passed over while others remain; the passed-over ones
   * fill the slots left, so a search restricted to one file still gets `k` excerpts.
   */
  select(
    candidates: readonly number[],
    scores: ArrayLike<number>,
    k: number,
    options: RankingOptions = {},
  ): ScoredExcerpt[] {
    if (!(options.diversity ?? DEFAULTS.diversity)) return topExcerpts(candidates, scores, k);
    // The greedy pass only needs candidates in score order: the 4k best usually suffice.
    const prefix = topExcerpts(candidates, scores, 4 * k).map((r) => r.excerpt);
    let picked = this.diverse(prefix, k);
    if (picked.length < k && prefix.length < candidates.length)
      picked = this.diverse(
        [...candidates].sort((a, b) => scores[b]! - scores[a]! || a - b),
        k,
      );
    return picked
      .sort((a, b) => scores[b]! - scores[a]! || a - b)
      .map((excerpt) => ({ excerpt, score: scores[excerpt]! }));
  }

  /** Greedy over `ranked` (best first): excerpts near chosen ones wait; they fill the slots left. */
  private diverse(ranked: readonly number[], k: number): number[] {
    const chosen = new Set<number>();
    const waiting: number[] = [];
    const doc = this.excerptDoc;
    for (const e of ranked) {
      if (chosen.size === k) break;
      const d = doc[e];
      let near = false;
      for (let x = e - DIVERSITY_SPREAD; x <= e + DIVERSITY_SPREAD && !near; x++)
        near = x !== e && chosen.has(x) && doc[x] === d;
      if (near) waiting.push(e);
      else chosen.add(e);
    }
    for (const e of waiting) {
      if (chosen.size === k) break;
      chosen.add(e);
    }
    return [...chosen];
  }

  /**
   * Cosine similarity (unit vectors) of the query embedding with every allowed excerpt that has a vector of `model`;
   * empty when no segment has vectors of that model and size.
   */
  scoreVector(
    queryVector: Float32Array,
    model: string,
    allowed: Uint8Array,
  ): { excerpt: number; similarity: number }[] {
    const out: { excerpt: number; similarity: number }[] = [];
    this.segments.forEach(({ segment }, s) => {
      const dims = segment.dims;
      if (!dims || dims !== queryVector.length || segment.embeddingModel !== model) return;
      const base = this.excerptBase[s]!;
      for (let e = 0; e < segment.excerptCount; e++) {
        if (!allowed[base + e]) continue;
        let dot = 0;
        const row = e * dims;
        for (let d = 0; d < dims; d++) dot += queryVector[d]! * segment.vectors[row + d]!;
        out.push({ excerpt: base + e, similarity: dot / 127 });
      }
    });
    return out;
  }

  /** True when some searchable excerpt has a vector of `model`. */
  hasVectors(model: string): boolean {
    return this.segments.some(({ segment }) => segment.dims > 0 && segment.embeddingModel === model);
  }
}

/** The `k` best of `candidates` by score (ties: earlier excerpt first). */
export function topExcerpts(candidates: readonly number[], scores: ArrayLike<number>, k: number): ScoredExcerpt[] {
  // k is small: keeping a small sorted list beats sorting thousands of candidates.
  const best: number[] = [];
  const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  for (const e of candidates) {
    if (best.length === k && !better(e, best[k - 1]!)) continue;
    let i = best.length < k ? best.length : k - 1;
    while (i > 0 && better(e, best[i - 1]!)) {
      best[i] = best[i - 1]!;
      i--;
    }
    best[i] = e;
  }
  return best.map((excerpt) => ({ excerpt, score: scores[excerpt]! }));
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
