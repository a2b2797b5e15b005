import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type RankingOptions, rankBm25, type ScoringSegment } from '#shared/knowledge/index/bm25.ts';
import { SCORING_BLOCK } from '#shared/knowledge/index/block-scorer.ts';
import { LENGTH_BLOCK } from '#shared/knowledge/index/segment-format.ts';
import type { QueryTerm } from '#shared/knowledge/text/analyzer.ts';
import { rankBm25Exhaustive } from './exhaustive-bm25.ts';
import { type Corpus, corpus, storedSegment } from './pruning-corpus.ts';

/**
 * Scoring by blocks, with blocks that cannot reach the top skipped, returns exactly what scoring every excerpt
 * returns: the same excerpts, in the same order, with the same scores (float32 bits), ties included.
 */

function bothRankings(c: Corpus, options: RankingOptions, limit: number) {
  const stats = { liveExcerpts: c.liveExcerpts, avgLength: c.avgLength, avgWindow: 2.7 * c.avgLength };
  return {
    pruned: rankBm25(c.segments, c.terms, stats, options, limit),
    exhaustive: rankBm25Exhaustive(c.segments, c.terms, stats, options, limit),
  };
}

describe('knowledge ranking with pruning', () => {
  test('the same top k as scoring every excerpt, on random corpora and queries', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.boolean(),
        fc.constantFrom(0, 0.5, 1),
        fc.boolean(),
        // Past the excerpt count nothing is pruned, and every excerpt's score is compared.
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(1_000_000)),
        (seed, ties, context, queryTermFrequency, limit) => {
          const c = corpus(seed, { vocabulary: 12, segments: 1 + (seed % 3), ties });
          const { pruned, exhaustive } = bothRankings(c, { context, queryTermFrequency }, limit);
          expect(pruned).toEqual(exhaustive);
        },
      ),
      { numRuns: 120 },
    );
  });

  test('ties at the threshold are broken by the earlier excerpt, as without pruning', () => {
    // Every excerpt scores the same: the top k are the k first, whichever blocks they are in.
    const excerptCount = 3 * SCORING_BLOCK + 7;
    const all = Uint32Array.from({ length: excerptCount }, (_, e) => e);
    const segment: ScoringSegment = {
      base: 0,
      excerptCount,
      postings: [[{ excerpts: all, tfs: new Uint8Array(excerptCount).fill(1) }]],
      lengths: new Uint16Array(excerptCount).fill(10),
      sameNext: new Uint8Array(excerptCount),
    };
    const c: Corpus = {
      segments: [segment],
      terms: [{ variants: ['a'], count: 1 }],
      liveExcerpts: excerptCount,
      avgLength: 10,
      avgWindow: 10,
    };
    const { pruned, exhaustive } = bothRankings(c, {}, 5);
    expect(pruned.map((r) => r.excerpt)).toEqual([0, 1, 2, 3, 4]);
    expect(pruned).toEqual(exhaustive);
  });

  test('lengths read by block around the query’s postings (format 5) rank exactly as all the lengths do', async () => {
    let partial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.boolean(),
        fc.constantFrom(0, 0.5, 1),
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(1_000_000)),
        async (seed, ties, context, limit) => {
          const c = corpus(seed, { vocabulary: 12, segments: 1 + (seed % 3), ties });
          const full = bothRankings(c, { context }, limit).exhaustive;
          const stored: ScoringSegment[] = [];
          for (const s of c.segments) {
            const reader = await storedSegment(s, c.terms);
            const lengths = await reader.searchLengths();
            await reader.coverLengths(await reader.postings(c.terms.flatMap((t) => t.variants)));
            if (lengths.some((l, e) => l !== s.lengths[e])) partial++;
            stored.push({ ...s, lengths });
          }
          const stats = { liveExcerpts: c.liveExcerpts, avgLength: c.avgLength, avgWindow: 2.7 * c.avgLength };
          expect(rankBm25(stored, c.terms, stats, { context }, limit)).toEqual(full);
        },
      ),
      { numRuns: 60 },
    );
    // Most corpora's queries touch only some blocks of lengths: those runs compared scores over partial lengths.
    expect(partial).toBeGreaterThan(0);
  });

  test('an occurrence at a block edge reads the lengths of the neighbourhoods it reaches in the blocks either side', async () => {
    const excerptCount = 6 * LENGTH_BLOCK;
    const edges = [LENGTH_BLOCK, 3 * LENGTH_BLOCK - 1];
    const segment: ScoringSegment = {
      base: 0,
      excerptCount,
      postings: [[{ excerpts: Uint32Array.from(edges), tfs: Uint8Array.from([1, 2]) }]],
      lengths: Uint16Array.from({ length: excerptCount }, (_, e) => 5 + ((e * 7) % 40)),
      sameNext: new Uint8Array(excerptCount).fill(1, 0, excerptCount - 1),
    };
    const terms: QueryTerm[] = [{ variants: ['a'], count: 1 }];
    const stats = { liveExcerpts: excerptCount, avgLength: 24, avgWindow: 70 };
    const reader = await storedSegment(segment, terms);
    const lengths = await reader.searchLengths();
    await reader.coverLengths(await reader.postings(['a']));
    const ranked = rankBm25([{ ...segment, lengths }], terms, stats, { context: 0.5 }, 100);
    // Each excerpt's neighbourhood reaches across the edge into the block before (512) or after (1535).
    expect(ranked.map((r) => r.excerpt).sort((a, b) => a - b)).toEqual(edges);
    expect(ranked).toEqual(rankBm25Exhaustive([segment], terms, stats, { context: 0.5 }, 100));
    expect(lengths.some((l, e) => l !== segment.lengths[e])).toBe(true); // blocks 4 and 5 were not read
  });
});
