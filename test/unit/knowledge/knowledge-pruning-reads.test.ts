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

  test('words in many excerpts each: a block with candidates everywhere reads each posting once, not a seek per run', () => {
    // Two words, each in every other excerpt (offset by one), once each and now and then more: the top's bar lets
    // most excerpts through, so candidates are spread over every block.
    const excerptCount = 3 * SCORING_BLOCK;
    const list = (first: number) => {
      const excerpts = Uint32Array.from({ length: excerptCount / 2 }, (_, i) => 2 * i + first);
      const tfs = Uint8Array.from(excerpts, (e) => 1 + (e % 7 === 0 ? 1 : 0));
      return { excerpts, tfs };
    };
    const a = list(0);
    const b = list(1);
    const countedA = countingReads(a.excerpts);
    const countedB = countingReads(b.excerpts);
    const segment: ScoringSegment = {
      base: 0,
      excerptCount,
      postings: [[{ excerpts: countedA.counted, tfs: a.tfs }], [{ excerpts: countedB.counted, tfs: b.tfs }]],
      lengths: Uint16Array.from({ length: excerptCount }, (_, e) => 8 + (e % 5)),
      sameNext: new Uint8Array(excerptCount).fill(1, 0, excerptCount - 1),
    };
    const terms: QueryTerm[] = [
      { variants: ['a'], count: 1 },
      { variants: ['b'], count: 1 },
    ];
    const stats = { liveExcerpts: excerptCount, avgLength: 10, avgWindow: 30 };
    const exhaustive = rankBm25Exhaustive([segment], terms, stats, { context: 0.5 }, 20);
    expect(rankBm25([segment], terms, stats, { context: 0.5 }, 20)).toEqual(exhaustive);
    countedA.counter.reads = 0;
    countedB.counter.reads = 0;
    expect(rankBm25([segment], terms, stats, { context: 0.5 }, 20)).toEqual(exhaustive);
    // Postings read 1.35 times each (16,613 reads; seeks where blocks start): a seek per run of candidates read 2.0.
    expect(countedA.counter.reads + countedB.counter.reads).toBeLessThan(1.5 * excerptCount);
  });
});
