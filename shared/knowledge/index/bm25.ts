import type { QueryTerm } from '../text/analyzer.ts';
import { type BlockQuery, BlockScorer, SCORING_BLOCK, type TermCursor, type WordCursors } from './block-scorer.ts';
import { BOUND_BLOCK, postingBounds, seek } from './posting-bounds.ts';
import type { Postings } from './segment-format.ts';
import type { ExcerptRange } from './segment-reading.ts';
import { type ScoredExcerpt, TopExcerpts } from './top-excerpts.ts';

export { type ScoredExcerpt, TopExcerpts };

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

export const RANKING_DEFAULTS: Required<RankingOptions> = { queryTermFrequency: true, context: 0.5, diversity: true };

/** What scoring needs of one segment: its postings for the query's words, per-excerpt facts, and where it starts. */
export interface ScoringSegment {
  /** View-wide id of its first excerpt. */
  base: number;
  excerptCount: number;
  /** postings[word][variant], undefined where the segment lacks the term. */
  postings: (Postings | undefined)[][];
  lengths: Uint16Array;
  /**
   * Format 6, while `lengths` does not hold every length the postings reach: the shortest length of each block of
   * lengths, from which the postings' bounds are taken instead (looser, and needing no excerpt's length).
   */
  lengthFloors?: Uint16Array;
  /** 1 when the next excerpt is in the same file. */
  sameNext: Uint8Array;
  /** Searchable excerpts; absent when all are. */
  live?: Uint8Array;
  /** Excerpts the file filters let through; absent when there are none. */
  allowed?: Uint8Array;
}

export interface CorpusStats {
  liveExcerpts: number;
  avgLength: number;
  avgWindow: number;
}

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
/** A block is skipped only when its bound falls this far below the threshold: float32 rounding stays well inside. */
const BOUND_MARGIN = 1e-5;

/**
 * BM25 of every allowed excerpt that holds a query word, the `limit` best returned (score desc, excerpt asc). Each
 * query word counts by its best variant (Portuguese or English term), times how often the query says it; idf counts
 * the searchable excerpts of every segment. Each excerpt's score is averaged (by `context`) with its neighbourhood's:
 * it and the excerpts either side in its file, BM25 over their joined counts. Scores are divided by the query's
 * ceiling (each word at its largest possible weight, idf × (k1 + 1)), so they fall in 0..1. The arithmetic is in
 * float32 where it is stored, so scores do not depend on how excerpts are split into segments.
 *
 * Segments are scored a block of excerpts at a time ({@link SCORING_BLOCK}), so scratch memory does not grow with a
 * segment. A block whose best possible score (from its postings' bounds, ./posting-bounds.ts) is below the score the
 * `limit`-th best has already reached is skipped without decoding its postings' scores: the answer is exactly that of
 * scoring every excerpt, while the long postings of common words are mostly passed over once rarer words have set
 * the bar. `bar`, when given, is a score the `limit`-th best is known to reach (see ./ranked-lengths.ts): blocks
 * below it are skipped from the start.
 */
export function rankBm25(
  segments: ScoringSegment[],
  terms: QueryTerm[],
  stats: CorpusStats,
  options: RankingOptions,
  limit: number,
  bar = Number.NEGATIVE_INFINITY,
): ScoredExcerpt[] {
  const top = new TopExcerpts(limit);
  scorer ??= new BlockScorer();
  const blocks = scorer;
  walkBlocks(
    segments,
    terms,
    stats,
    options,
    () => Math.max(bar, top.threshold()),
    (s, _k, query, lo, hi) => blocks.score(s, query, lo, hi, top),
  );
  return top.sorted();
}

/**
 * Per segment, the excerpts whose postings and lengths scoring reads (the lengths of those within two of each such
 * posting) to rank the blocks that can reach `bar`, as {@link rankBm25} given that bar may rank them (with the bounds
 * it would use; a higher bar there only makes fewer words essential): ranges ascending, not overlapping.
 */
export function blocksInReach(
  segments: ScoringSegment[],
  terms: QueryTerm[],
  stats: CorpusStats,
  options: RankingOptions,
  bar: number,
): ExcerptRange[][] {
  const ranges: [number, number][][] = segments.map(() => []);
  walkBlocks(
    segments,
    terms,
    stats,
    options,
    () => bar,
    (_s, k, query, lo, hi) => {
      const add = ([from, to]: [number, number]) => {
        const last = ranges[k]!.at(-1);
        if (last && last[1] >= from) last[1] = Math.max(last[1], to);
        else ranges[k]!.push([from, to]);
      };
      for (const range of readInBlock(query, lo, hi)) add(range);
    },
  );
  return ranges;
}

/**
 * The excerpts of block `[lo, hi)` whose postings its scoring reads: those of lo - 1 ..= hi when every word is
 * essential; else the candidates (within one of an essential word's posting) and the postings within one of them,
 * which is every excerpt within two of an essential word's posting.
 */
function readInBlock(query: BlockQuery, lo: number, hi: number): [number, number][] {
  const whole: [number, number] = [Math.max(0, lo - 1), hi + 1];
  if (query.words.every((w) => w.essential)) return [whole];
  const near: [number, number][] = [];
  for (const word of query.words) {
    if (!word.essential) continue;
    for (const c of word.variants)
      for (let i = c.at; i < c.end; i++)
        near.push([Math.max(whole[0], c.excerpts[i]! - 2), Math.min(whole[1], c.excerpts[i]! + 3)]);
  }
  near.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of near) {
    const last = merged.at(-1);
    if (last && last[1] >= r[0]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

/** Calls `visit` with each block of each segment whose best possible score reaches `bar()`, words marked. */
function walkBlocks(
  segments: ScoringSegment[],
  terms: QueryTerm[],
  stats: CorpusStats,
  options: RankingOptions,
  bar: () => number,
  visit: (s: ScoringSegment, k: number, query: BlockQuery, lo: number, hi: number) => void,
): void {
  const qtf = options.queryTermFrequency ?? RANKING_DEFAULTS.queryTermFrequency;
  const context = Math.min(1, Math.max(0, options.context ?? RANKING_DEFAULTS.context));
  if (!terms.length || !stats.liveExcerpts) return;
  const { idfs, ceiling } = queryWeights(segments, terms, stats.liveExcerpts, qtf);
  const norms = lengthNorms(stats);
  const slopes = {
    flat: BM25_K1 * (1 - BM25_B),
    ownSlope: (BM25_K1 * BM25_B) / stats.avgLength,
    windowSlope: (BM25_K1 * BM25_B) / stats.avgWindow,
  };
  for (const [k, s] of segments.entries()) {
    const words = cursorsOf(s, terms, idfs, qtf);
    if (!words.length) continue;
    const query: BlockQuery = { words, ceiling, context, ...norms, ...slopes, bar: Number.NEGATIVE_INFINITY };
    const cursors = words.flatMap((w) => w.variants);
    for (let lo = 0; lo < s.excerptCount; ) {
      const hi = Math.min(s.excerptCount, lo + SCORING_BLOCK);
      // Postings of the excerpts lo - 1 ..= hi: the block's own and those that reach into its edge neighbourhoods.
      let next = Number.POSITIVE_INFINITY;
      for (const c of cursors) {
        c.at = seek(c.excerpts, c.at, lo - 1);
        c.end = seek(c.excerpts, c.at, hi + 1);
        if (c.at < c.excerpts.length) next = Math.min(next, c.excerpts[c.at]!);
      }
      if (next > hi) {
        // Nothing here: on to the block of the next posting (whose previous excerpt's neighbourhood it reaches).
        if (next === Number.POSITIVE_INFINITY) break;
        lo = Math.max(hi, Math.floor((next - 1) / SCORING_BLOCK) * SCORING_BLOCK);
        continue;
      }
      query.bar = bar() / (1 + BOUND_MARGIN);
      if (markEssential(query)) visit(s, k, query, lo, hi);
      lo = hi;
    }
  }
}
let scorer: BlockScorer | undefined;

/** idf of each variant over the searchable excerpts of every segment (NaN: none has it), and the query's ceiling. */
function queryWeights(
  segments: ScoringSegment[],
  terms: QueryTerm[],
  N: number,
  qtf: boolean,
): { idfs: number[][]; ceiling: number } {
  const missingIdf = Math.log(1 + (N + 0.5) / 0.5);
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
  return { idfs, ceiling };
}

/** BM25's length normalisation of an excerpt and of a neighbourhood, float32 as scoring stores it. */
function lengthNorms(stats: CorpusStats): Pick<BlockQuery, 'norm' | 'windowNorm'> {
  const normTable = normTables.own.for(stats.avgLength);
  const windowNormTable = normTables.window.for(stats.avgWindow);
  return {
    norm: (length: number) => {
      let n = normTable[length]!;
      if (Number.isNaN(n)) {
        n = Math.fround(BM25_K1 * (1 - BM25_B + (BM25_B * length) / stats.avgLength));
        normTable[length] = n;
      }
      return n;
    },
    windowNorm: (length: number) => {
      let n = windowNormTable[length]!;
      if (Number.isNaN(n)) {
        n = Math.fround(BM25_K1 * (1 - BM25_B + (BM25_B * length) / stats.avgWindow));
        windowNormTable[length] = n;
      }
      return n;
    },
  };
}

/** The segment's cursors per query word: the variants it holds that some searchable excerpt has. */
function cursorsOf(s: ScoringSegment, terms: QueryTerm[], idfs: number[][], qtf: boolean): WordCursors[] {
  const words: WordCursors[] = [];
  terms.forEach(({ variants, count }, w) => {
    const cursors: TermCursor[] = [];
    variants.forEach((_, v) => {
      const idf = idfs[w]![v]!;
      const p = s.postings[w]![v];
      if (Number.isNaN(idf) || !p || !p.excerpts.length) return;
      const bounds = postingBounds(p, s.lengths, s.lengthFloors, s.sameNext);
      cursors.push({ excerpts: p.excerpts, tfs: p.tfs, topWeight: idf * (BM25_K1 + 1), bounds, at: 0, end: 0 });
    });
    if (cursors.length) words.push({ weight: qtf ? count : 1, variants: cursors, bound: 0, essential: true });
  });
  return words;
}

/**
 * Each word's bound in the block (the largest it can add to an excerpt's score: its best variant's bound on the
 * excerpt's own weight and on its neighbourhood's, each from the largest count and the shortest excerpt of the
 * postings blocks in reach, mixed and divided as scores are), and which words are essential: the fewest, highest
 * bounds such that the others together stay below `bar`. False when no excerpt of the block can reach `bar`.
 */
function markEssential(query: BlockQuery): boolean {
  const { context, ceiling, flat, ownSlope, windowSlope, bar } = query;
  let total = 0;
  for (const word of query.words) {
    let own = 0;
    let window = 0;
    for (const c of word.variants) {
      if (c.end <= c.at) continue;
      const { maxTf, minLength, maxWindowTf, minWindowLength } = c.bounds;
      const last = ((c.end - 1) / BOUND_BLOCK) | 0;
      for (let k = (c.at / BOUND_BLOCK) | 0; k <= last; k++) {
        const tf = maxTf[k]!;
        own = Math.max(own, (c.topWeight * tf) / (tf + flat + ownSlope * minLength[k]!));
        const wtf = maxWindowTf[k]!;
        window = Math.max(window, (c.topWeight * wtf) / (wtf + flat + windowSlope * minWindowLength[k]!));
      }
    }
    word.bound = (word.weight * ((1 - context) * own + context * window)) / ceiling;
    word.essential = true;
    total += word.bound;
  }
  if (total < bar) return false;
  if (query.words.length === 1) return true;
  // The lowest bounds first, while their sum stays below the bar.
  const byBound = [...query.words].sort((a, b) => a.bound - b.bound);
  let sum = 0;
  for (const word of byBound) {
    sum += word.bound;
    if (sum >= bar) break;
    word.essential = false;
  }
  return true;
}
