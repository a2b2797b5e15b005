import { BOUND_BLOCK, type PostingBounds, seek } from './posting-bounds.ts';
import type { TopExcerpts } from './top-excerpts.ts';

/** Excerpts scored together: scoring's scratch is a few of these, whatever the size of the segment. */
export const SCORING_BLOCK = 4096;
/** A variant's postings in a block are read through, not by runs of candidates, up to this many per candidate. */
const READ_THROUGH = 8;

/** One query term (a variant of a query word) in one segment: its postings and how far scoring has reached. */
export interface TermCursor {
  excerpts: Uint32Array;
  tfs: Uint8Array;
  /** idf × (k1 + 1): the term's largest possible weight. */
  topWeight: number;
  bounds: PostingBounds;
  /** The postings of the block being scored: `[at, end)`, the excerpts one either side included. */
  at: number;
  end: number;
}

/** A query word in one segment: how often the query says it, and its variants that the segment holds. */
export interface WordCursors {
  weight: number;
  variants: TermCursor[];
  /** The most this word can add to the score of an excerpt of the block being scored (0..1 like scores). */
  bound: number;
  /**
   * False when the words so marked cannot together lift an excerpt to the top: such a word's postings are then read
   * only around the excerpts the other words reach.
   */
  essential: boolean;
}

/**
 * What a block is scored against: the query's ceiling, the context weight, BM25's length normalisation (and its
 * parts, for bounds: `flat + slope × length`), and the score an excerpt must reach to enter the top.
 */
export interface BlockQuery {
  words: WordCursors[];
  ceiling: number;
  context: number;
  norm: (length: number) => number;
  windowNorm: (length: number) => number;
  flat: number;
  ownSlope: number;
  windowSlope: number;
  /** Below this, an excerpt cannot enter the top (-Infinity while it is not full). */
  bar: number;
}

/** The segment's facts scoring reads (see ScoringSegment in ./bm25.ts). */
export interface BlockSegment {
  base: number;
  lengths: Uint16Array;
  sameNext: Uint8Array;
  live?: Uint8Array;
  allowed?: Uint8Array;
}

/**
 * Scores one block of excerpts `[lo, hi)` exactly, pushing every matched excerpt into `top`. Local slot j is excerpt
 * lo - 1 + j, so the excerpts either side of the block (whose occurrences count in its edge neighbourhoods) have
 * slots too. The arithmetic is the same, in the same order per excerpt, as scoring a whole segment at once: each
 * query word by its best variant, float32 where it is stored, the neighbourhood over the excerpt and those either side
 * in its file.
 */
export class BlockScorer {
  private readonly bestExcerpt = new Float32Array(SCORING_BLOCK + 2);
  private readonly bestWindow = new Float32Array(SCORING_BLOCK + 2);
  private readonly windowTf = new Float32Array(SCORING_BLOCK + 2);
  private readonly scores = new Float32Array(SCORING_BLOCK + 2);
  private readonly windowScores = new Float32Array(SCORING_BLOCK + 2);
  private readonly seen = new Uint8Array(SCORING_BLOCK + 2);
  private readonly windowSeen = new Uint8Array(SCORING_BLOCK + 2);
  // A word's variants together touch each slot at most twice, each window at most twice.
  private readonly touched = new Uint32Array(2 * (SCORING_BLOCK + 2));
  private readonly touchedWindows = new Uint32Array(3 * (SCORING_BLOCK + 2));
  private readonly matched = new Uint32Array(SCORING_BLOCK + 2);
  private readonly windows = new Uint32Array(SCORING_BLOCK + 2);

  private readonly candidate = new Uint8Array(SCORING_BLOCK + 2);
  private readonly candidates = new Uint32Array(SCORING_BLOCK + 2);
  /** 1 at the candidates' slots while they are in force: only their scores are gathered. */
  private readonly wanted = new Uint8Array(SCORING_BLOCK + 2);
  // Per slot: the most the essential words can add (all, and the word at hand's own and neighbourhood parts).
  private readonly slotBound = new Float64Array(SCORING_BLOCK + 2);
  private readonly ownMax = new Float64Array(SCORING_BLOCK + 2);
  private readonly windowMax = new Float64Array(SCORING_BLOCK + 2);
  private readonly wordSlots = new Uint32Array(SCORING_BLOCK + 2);
  private readonly slots = new Uint32Array(SCORING_BLOCK + 2);
  private nCandidates = 0;
  /** Whether the candidates are in order yet (only the reads by runs need them so). */
  private sorted = false;
  private nTouched = 0;
  private nWindows = 0;

  score(s: BlockSegment, query: BlockQuery, lo: number, hi: number, top: TopExcerpts): void {
    const { scores, windowScores, seen, windowSeen, matched, windows } = this;
    const { ceiling, context } = query;
    this.markCandidates(query, lo, hi);
    let nMatched = 0;
    let nWindowsSeen = 0;
    for (const word of query.words) {
      this.scoreWord(s, query, word, lo, hi);
      const { touched, touchedWindows, bestExcerpt, bestWindow, nTouched, nWindows } = this;
      for (let i = 0; i < nTouched; i++) {
        const j = touched[i]!;
        scores[j]! += word.weight * bestExcerpt[j]!;
        bestExcerpt[j] = 0;
        if (!seen[j]) {
          seen[j] = 1;
          matched[nMatched++] = j;
        }
      }
      if (context > 0)
        for (let i = 0; i < nWindows; i++) {
          const j = touchedWindows[i]!;
          windowScores[j]! += word.weight * bestWindow[j]!;
          bestWindow[j] = 0;
          if (!windowSeen[j]) {
            windowSeen[j] = 1;
            windows[nWindowsSeen++] = j;
          }
        }
    }
    const first = s.base + lo - 1;
    for (let i = 0; i < nMatched; i++) {
      const j = matched[i]!;
      const own = scores[j]! / ceiling;
      const score = Math.fround(
        Math.min(1, context > 0 ? (1 - context) * own + (context * windowScores[j]!) / ceiling : own),
      );
      top.push(first + j, score);
      scores[j] = 0;
      seen[j] = 0;
    }
    for (let i = 0; i < nWindowsSeen; i++) {
      const j = windows[i]!;
      windowScores[j] = 0;
      windowSeen[j] = 0;
    }
    for (let i = 0; i < this.nCandidates; i++) this.wanted[this.candidates[i]! - lo + 1] = 0;
  }

  /**
   * Once the top is full: the slots whose score can still reach the bar, in order. A slot's score is bounded by the
   * words that are not essential (their bounds in the block) plus, per essential word, the bounds of the postings
   * blocks of its occurrences in reach (the excerpt's own, for its weight; those within one, for its
   * neighbourhood's). Only these are scored (exactly: every posting within one of them is read); no other excerpt
   * can reach the bar.
   */
  private markCandidates(query: BlockQuery, lo: number, hi: number): void {
    this.nCandidates = -1;
    const { bar, context, ceiling, flat, ownSlope, windowSlope } = query;
    if (!(bar > 0)) return;
    const { candidate, candidates, slotBound, ownMax, windowMax, wordSlots, slots } = this;
    const offset = lo - 1;
    const last = hi - offset - 1;
    let rest = 0;
    let total = 0;
    for (const word of query.words) {
      total += word.bound;
      if (!word.essential) rest += word.bound;
    }
    let nSlots = 0;
    for (const word of query.words) {
      if (!word.essential) continue;
      // A postings block whose bound, with every other word at its bound in the block, stays below the bar reaches
      // no excerpt that can: skipped whole.
      const others = bar - (total - word.bound);
      const weight = word.weight / ceiling;
      let nWord = 0;
      for (const c of word.variants) {
        const { maxTf, minLength, maxWindowTf, minWindowLength } = c.bounds;
        for (let k = (c.at / BOUND_BLOCK) | 0; k * BOUND_BLOCK < c.end; k++) {
          const tf = maxTf[k]!;
          const own = (c.topWeight * tf) / (tf + flat + ownSlope * minLength[k]!);
          const wtf = maxWindowTf[k]!;
          const window = (c.topWeight * wtf) / (wtf + flat + windowSlope * minWindowLength[k]!);
          if (weight * ((1 - context) * own + context * window) < others) continue;
          const end = Math.min(c.end, (k + 1) * BOUND_BLOCK);
          for (let i = Math.max(c.at, k * BOUND_BLOCK); i < end; i++) {
            const j = c.excerpts[i]! - offset;
            if (j >= 1 && j <= last && own > ownMax[j]!) ownMax[j] = own;
            for (let x = Math.max(1, j - 1); x <= Math.min(last, j + 1); x++) {
              if (windowMax[x] === 0) wordSlots[nWord++] = x;
              if (window > windowMax[x]!) windowMax[x] = window;
            }
          }
        }
      }
      for (let n = 0; n < nWord; n++) {
        const x = wordSlots[n]!;
        if (!candidate[x]) {
          candidate[x] = 1;
          slots[nSlots++] = x;
        }
        slotBound[x]! += weight * ((1 - context) * ownMax[x]! + context * windowMax[x]!);
        ownMax[x] = 0;
        windowMax[x] = 0;
      }
    }
    let n = 0;
    for (let t = 0; t < nSlots; t++) {
      const x = slots[t]!;
      if (slotBound[x]! + rest >= bar) {
        candidates[n++] = x + offset;
        this.wanted[x] = 1;
      }
      slotBound[x] = 0;
      candidate[x] = 0;
    }
    this.nCandidates = n;
    this.sorted = false;
  }

  /** One word's best variant per excerpt and per neighbourhood of the block, into the scratch. */
  private scoreWord(s: BlockSegment, query: BlockQuery, word: WordCursors, lo: number, hi: number): void {
    this.nTouched = 0;
    this.nWindows = 0;
    const { bestWindow, windowTf, touchedWindows } = this;
    const { lengths, sameNext } = s;
    const offset = lo - 1;
    for (const c of word.variants) {
      if (c.end <= c.at) continue;
      const { candidates, nCandidates } = this;
      // Where the variant has few postings in the block for as many candidates, reading them all costs less than a
      // seek per run of candidates: only the candidates' slots take their counts, in the same order either way.
      if (nCandidates < 0 || c.end - c.at <= READ_THROUGH * nCandidates) this.visit(s, query, c, c.at, c.end, lo, hi);
      else {
        // Only the postings of the candidates and their neighbours: the occurrences their scores are made of.
        // Candidates within three of each other make one run: their neighbours' postings are read once, in order.
        if (!this.sorted) {
          candidates.subarray(0, nCandidates).sort();
          this.sorted = true;
        }
        let i = c.at;
        for (let k = 0; k < nCandidates && i < c.end; ) {
          const from = candidates[k]!;
          let to = from;
          while (++k < nCandidates && candidates[k]! <= to + 3) to = candidates[k]!;
          i = seek(c.excerpts, i, from - 1);
          let end = i;
          while (end < c.end && c.excerpts[end]! <= to + 1) end++;
          this.visit(s, query, c, i, end, lo, hi);
          i = end;
        }
      }
      if (query.context <= 0) continue;
      for (let i = 0; i < this.nWindows; i++) {
        const j = touchedWindows[i]!;
        const tf = windowTf[j]!;
        if (tf === 0) continue;
        const x = j + offset;
        let length = lengths[x]!;
        if (x > 0 && sameNext[x - 1]) length += lengths[x - 1]!;
        if (sameNext[x]) length += lengths[x + 1]!;
        const y = (c.topWeight * tf) / (tf + query.windowNorm(length));
        if (y > bestWindow[j]!) bestWindow[j] = y;
        windowTf[j] = 0;
      }
    }
  }

  /**
   * Postings `[from, to)` of one variant: each one's weight in its excerpt, its count in the neighbourhoods; only
   * the candidates' while there are candidates (no other excerpt can reach the top).
   */
  private visit(s: BlockSegment, query: BlockQuery, c: TermCursor, from: number, to: number, lo: number, hi: number) {
    const { bestExcerpt, windowTf, touched, touchedWindows } = this;
    const only = this.nCandidates >= 0 ? this.wanted : undefined;
    const { lengths, sameNext, live, allowed } = s;
    const { context, norm } = query;
    const { excerpts, tfs, topWeight } = c;
    const offset = lo - 1;
    let { nTouched, nWindows } = this;
    for (let i = from; i < to; i++) {
      const e = excerpts[i]!;
      if ((live && !live[e]) || (allowed && !allowed[e])) continue;
      const tf = tfs[i]!;
      const j = e - offset;
      const inside = e >= lo && e < hi && (!only || only[j] === 1);
      if (inside) {
        const x = (topWeight * tf) / (tf + norm(lengths[e]!));
        if (bestExcerpt[j] === 0) touched[nTouched++] = j;
        if (x > bestExcerpt[j]!) bestExcerpt[j] = x;
      }
      if (context <= 0) continue;
      // The excerpt's occurrences count in its own neighbourhood and in its neighbours' (same file only).
      if (inside) {
        if (windowTf[j] === 0) touchedWindows[nWindows++] = j;
        windowTf[j]! += tf;
      }
      if (e > lo && e <= hi && sameNext[e - 1] && (!only || only[j - 1] === 1)) {
        if (windowTf[j - 1] === 0) touchedWindows[nWindows++] = j - 1;
        windowTf[j - 1]! += tf;
      }
      if (e + 1 >= lo && e + 1 < hi && sameNext[e] && (!only || only[j + 1] === 1)) {
        if (windowTf[j + 1] === 0) touchedWindows[nWindows++] = j + 1;
        windowTf[j + 1]! += tf;
      }
    }
    this.nTouched = nTouched;
    this.nWindows = nWindows;
  }
}
