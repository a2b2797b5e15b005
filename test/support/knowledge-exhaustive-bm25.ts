import {
  BM25_B,
  BM25_K1,
  type CorpusStats,
  RANKING_DEFAULTS,
  type RankingOptions,
  type ScoringSegment,
} from '#shared/knowledge/index/bm25.ts';
import { type ScoredExcerpt, TopExcerpts } from '#shared/knowledge/index/top-excerpts.ts';
import type { QueryTerm } from '#shared/knowledge/text/analyzer.ts';

/**
 * Knowledge search's BM25 as it was before scoring by blocks with pruning: every excerpt that holds a query word
 * scored, in scratch the size of the segment. Kept as the oracle the pruned ranking must equal exactly.
 */

/** Scoring's per-excerpt scratch, sized for the largest segment scored so far; one search scores at a time. */
class Scratch {
  readonly bestExcerpt: Float32Array;
  readonly bestWindow: Float32Array;
  readonly windowTf: Float32Array;
  readonly scores: Float32Array;
  readonly windowScores: Float32Array;
  readonly seen: Uint8Array;
  readonly windowSeen: Uint8Array;
  readonly touched: Uint32Array;
  readonly touchedWindows: Uint32Array;
  readonly matched: Uint32Array;
  readonly windows: Uint32Array;
  constructor(readonly size: number) {
    this.bestExcerpt = new Float32Array(size);
    this.bestWindow = new Float32Array(size);
    this.windowTf = new Float32Array(size);
    this.scores = new Float32Array(size);
    this.windowScores = new Float32Array(size);
    this.seen = new Uint8Array(size);
    this.windowSeen = new Uint8Array(size);
    // A word's variants together touch each excerpt at most twice, each window at most twice.
    this.touched = new Uint32Array(2 * size);
    this.touchedWindows = new Uint32Array(3 * size);
    this.matched = new Uint32Array(size);
    this.windows = new Uint32Array(size);
  }
}
let scratch: Scratch | undefined;

/** BM25's length normalisation per length (float32, as it is stored), filled as lengths are met; kept per average. */
class NormTable {
  private average = Number.NaN;
  private readonly values: Float32Array;
  constructor(size: number) {
    this.values = new Float32Array(size).fill(Number.NaN);
  }
  for(average: number): Float32Array {
    if (average !== this.average) {
      this.values.fill(Number.NaN);
      this.average = average;
    }
    return this.values;
  }
}
// Excerpt lengths are u16; a neighbourhood is three excerpts.
const normTables = { own: new NormTable(65_536), window: new NormTable(3 * 65_535 + 1) };
function scratchFor(size: number): Scratch {
  if (!scratch || scratch.size < size) scratch = new Scratch(Math.max(size, 1024));
  return scratch;
}

/**
 * BM25 of every allowed excerpt that holds a query word, the `limit` best returned (score desc, excerpt asc). Each
 * query word counts by its best variant (Portuguese or English term), times how often the query says it; idf counts
 * the searchable excerpts of every segment. Each excerpt's score is averaged (by `context`) with its neighbourhood's:
 * it and the excerpts either side in its file, BM25 over their joined counts. Scores are divided by the query's
 * ceiling (each word at its largest possible weight, idf × (k1 + 1)), so they fall in 0..1. Segments are scored one
 * at a time with scratch of one segment's size: memory follows the largest segment, not the bot. The arithmetic is
 * in float32 where it is stored, so scores do not depend on how excerpts are split into segments.
 */
export function rankBm25Exhaustive(
  segments: ScoringSegment[],
  terms: QueryTerm[],
  stats: CorpusStats,
  options: RankingOptions,
  limit: number,
): ScoredExcerpt[] {
  const qtf = options.queryTermFrequency ?? RANKING_DEFAULTS.queryTermFrequency;
  const context = Math.min(1, Math.max(0, options.context ?? RANKING_DEFAULTS.context));
  if (!terms.length || !stats.liveExcerpts) return [];
  const N = stats.liveExcerpts;
  const missingIdf = Math.log(1 + (N + 0.5) / 0.5);
  // idf of each variant over the searchable excerpts of every segment (NaN: no searchable excerpt has it).
  const idfs: number[][] = [];
  let ceiling = 0;
  terms.forEach(({ variants, count }, w) => {
    let groupIdf = 0;
    const row = variants.map((_, v) => {
      let df = 0;
      for (const s of segments) {
        const p = s.postings[w]![v];
        if (!p) continue;
        if (!s.live) df += p.excerpts.length;
        else for (let i = 0; i < p.excerpts.length; i++) df += s.live[p.excerpts[i]!]!;
      }
      if (!df) return Number.NaN;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      if (idf > groupIdf) groupIdf = idf;
      return idf;
    });
    idfs.push(row);
    ceiling += (qtf ? count : 1) * (BM25_K1 + 1) * (groupIdf || missingIdf);
  });
  const normTable = normTables.own.for(stats.avgLength);
  const windowNormTable = normTables.window.for(stats.avgWindow);
  const norm = (length: number) => {
    let n = normTable[length]!;
    if (Number.isNaN(n)) {
      n = Math.fround(BM25_K1 * (1 - BM25_B + (BM25_B * length) / stats.avgLength));
      normTable[length] = n;
    }
    return n;
  };
  const windowNorm = (length: number) => {
    let n = windowNormTable[length]!;
    if (Number.isNaN(n)) {
      n = Math.fround(BM25_K1 * (1 - BM25_B + (BM25_B * length) / stats.avgWindow));
      windowNormTable[length] = n;
    }
    return n;
  };
  const top = new TopExcerpts(limit);
  for (const s of segments) {
    if (!s.postings.some((row) => row.some(Boolean))) continue;
    const sc = scratchFor(s.excerptCount);
    const { bestExcerpt, bestWindow, windowTf, scores, windowScores, seen, windowSeen, touched, touchedWindows } = sc;
    const { lengths, sameNext, live, allowed } = s;
    let nMatched = 0;
    let nWindowsSeen = 0;
    terms.forEach(({ variants, count }, w) => {
      const weight = qtf ? count : 1;
      let nTouched = 0;
      let nWindows = 0;
      for (let v = 0; v < variants.length; v++) {
        const idf = idfs[w]![v]!;
        const p = s.postings[w]![v];
        if (Number.isNaN(idf) || !p) continue;
        const topWeight = idf * (BM25_K1 + 1);
        const { excerpts, tfs } = p;
        for (let i = 0; i < excerpts.length; i++) {
          const e = excerpts[i]!;
          if ((live && !live[e]) || (allowed && !allowed[e])) continue;
          const tf = tfs[i]!;
          const x = (topWeight * tf) / (tf + norm(lengths[e]!));
          if (bestExcerpt[e] === 0) touched[nTouched++] = e;
          if (x > bestExcerpt[e]!) bestExcerpt[e] = x;
          if (context <= 0) continue;
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
        if (context <= 0) continue;
        for (let i = 0; i < nWindows; i++) {
          const x = touchedWindows[i]!;
          const tf = windowTf[x]!;
          if (tf === 0) continue;
          let length = lengths[x]!;
          if (x > 0 && sameNext[x - 1]) length += lengths[x - 1]!;
          if (sameNext[x]) length += lengths[x + 1]!;
          const y = (topWeight * tf) / (tf + windowNorm(length));
          if (y > bestWindow[x]!) bestWindow[x] = y;
          windowTf[x] = 0;
        }
      }
      for (let i = 0; i < nTouched; i++) {
        const e = touched[i]!;
        scores[e]! += weight * bestExcerpt[e]!;
        bestExcerpt[e] = 0;
        if (!seen[e]) {
          seen[e] = 1;
          sc.matched[nMatched++] = e;
        }
      }
      if (context > 0)
        for (let i = 0; i < nWindows; i++) {
          const x = touchedWindows[i]!;
          windowScores[x]! += weight * bestWindow[x]!;
          bestWindow[x] = 0;
          if (!windowSeen[x]) {
            windowSeen[x] = 1;
            sc.windows[nWindowsSeen++] = x;
          }
        }
    });
    for (let i = 0; i < nMatched; i++) {
      const e = sc.matched[i]!;
      const own = scores[e]! / ceiling;
      scores[e] = Math.min(1, context > 0 ? (1 - context) * own + (context * windowScores[e]!) / ceiling : own);
      top.push(s.base + e, scores[e]!);
      scores[e] = 0;
      seen[e] = 0;
    }
    for (let i = 0; i < nWindowsSeen; i++) {
      const x = sc.windows[i]!;
      windowScores[x] = 0;
      windowSeen[x] = 0;
    }
  }
  return top.sorted();
}
