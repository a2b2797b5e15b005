import { describe, expect, test } from 'vitest';
import { rankBm25, type ScoringSegment } from '#shared/knowledge/index/bm25.ts';
import { SCORING_BLOCK } from '#shared/knowledge/index/block-scorer.ts';
import type { QueryTerm } from '#shared/knowledge/text/analyzer.ts';
import { rankBm25Exhaustive } from './exhaustive-bm25.ts';

/**
 * Once the top is full, a block of excerpts is scored only where an excerpt can still reach it: the postings of a
 * common word are read around the few postings blocks whose bounds reach the top, not all of the block's, and the
 * answer is still exactly that of scoring every excerpt.
 */

/** `excerpts` with every index read counted (the scorer's reads of a term's postings). */
function countingReads(excerpts: Uint32Array) {
  const counter = { reads: 0 };
  const counted = new Proxy(excerpts, {
    get(target, key) {
      if (typeof key === 'string' && key.length && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) counter.reads++;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { counted, counter };
}

describe('knowledge ranking reads', () => {
  test('a word in every excerpt: blocks past the first read only around the postings that can reach the top', () => {
    // Three scoring blocks; one word in every excerpt once, and nine times in one excerpt of each block.
    const excerptCount = 3 * SCORING_BLOCK;
    const heavy = [0, SCORING_BLOCK + 1000, 2 * SCORING_BLOCK + 2000];
    const tfs = new Uint8Array(excerptCount).fill(1);
    for (const e of heavy) tfs[e] = 9;
    const { counted, counter } = countingReads(Uint32Array.from({ length: excerptCount }, (_, e) => e));
    const segment: ScoringSegment = {
      base: 0,
      excerptCount,
      postings: [[{ excerpts: counted, tfs }]],
      lengths: new Uint16Array(excerptCount).fill(10),
      sameNext: new Uint8Array(excerptCount).fill(1, 0, excerptCount - 1),
    };
    const terms: QueryTerm[] = [{ variants: ['a'], count: 1 }];
    const stats = { liveExcerpts: excerptCount, avgLength: 10, avgWindow: 30 };
    const exhaustive = rankBm25Exhaustive([segment], terms, stats, { context: 0.5 }, 1);
    // The postings' bounds are computed once per list and kept: a first query pays for them.
    expect(rankBm25([segment], terms, stats, { context: 0.5 }, 1)).toEqual(exhaustive);
    counter.reads = 0;
    expect(rankBm25([segment], terms, stats, { context: 0.5 }, 1)).toEqual(exhaustive);
    expect(exhaustive.map((r) => r.excerpt)).toEqual([heavy[0]]);
    // The first block is read whole (its first excerpt fills the top); of the others, a few postings blocks each.
    expect(counter.reads).toBeLessThan(SCORING_BLOCK + 1_000);
  });
});
