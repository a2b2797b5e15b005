import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type RankingOptions, rankBm25, type ScoringSegment } from '#shared/knowledge/index/bm25.ts';
import { SCORING_BLOCK } from '#shared/knowledge/index/block-scorer.ts';
import { openSegment, type RangedObjects, unboundedPieces } from '#shared/knowledge/index/segment.ts';
import { LENGTH_BLOCK, type Postings } from '#shared/knowledge/index/segment-format.ts';
import { SegmentWriter } from '#shared/knowledge/index/segment-writer.ts';
import type { QueryTerm } from '#shared/knowledge/text/analyzer.ts';
import { rankBm25Exhaustive } from './exhaustive-bm25.ts';

/**
 * Scoring by blocks, with blocks that cannot reach the top skipped, returns exactly what scoring every excerpt
 * returns: the same excerpts, in the same order, with the same scores (float32 bits), ties included.
 */

/** A small deterministic generator, so one seed from fast-check makes a whole corpus. */
function random(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

interface Corpus {
  segments: ScoringSegment[];
  terms: QueryTerm[];
  liveExcerpts: number;
  avgLength: number;
  avgWindow: number;
}

/**
 * Segments of a few blocks each over a vocabulary of `vocabulary` terms, the first ones dense (common words) and the
 * rest sparse; lengths and frequencies drawn from few values so that equal scores are common.
 */
function corpus(seed: number, options: { vocabulary: number; segments: number; ties: boolean }): Corpus {
  const next = random(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const segments: ScoringSegment[] = [];
  let base = 0;
  let liveExcerpts = 0;
  let lengthSum = 0;
  for (let s = 0; s < options.segments; s++) {
    const excerptCount = 1 + pick(4 * SCORING_BLOCK);
    const lengths = new Uint16Array(excerptCount);
    const sameNext = new Uint8Array(excerptCount);
    for (let e = 0; e < excerptCount; e++) {
      lengths[e] = options.ties ? [4, 8, 16][pick(3)]! : 1 + pick(300);
      sameNext[e] = e < excerptCount - 1 && next() < 0.8 ? 1 : 0;
    }
    const live = next() < 0.5 ? Uint8Array.from({ length: excerptCount }, () => (next() < 0.9 ? 1 : 0)) : undefined;
    const allowed = next() < 0.3 ? Uint8Array.from({ length: excerptCount }, () => (next() < 0.7 ? 1 : 0)) : undefined;
    const postings = Array.from({ length: options.vocabulary }, (_, t): Postings | undefined => {
      const density = t === 0 ? 0.6 : t < 3 ? 0.2 / t : 0.002 * next();
      const excerpts: number[] = [];
      const tfs: number[] = [];
      for (let e = 0; e < excerptCount; e++)
        if (next() < density) {
          excerpts.push(e);
          tfs.push(options.ties ? 1 + pick(2) : next() < 0.01 ? 255 : 1 + pick(6));
        }
      return excerpts.length ? { excerpts: Uint32Array.from(excerpts), tfs: Uint8Array.from(tfs) } : undefined;
    });
    for (let e = 0; e < excerptCount; e++)
      if (!live || live[e]) {
        liveExcerpts++;
        lengthSum += lengths[e]!;
      }
    segments.push({
      base,
      excerptCount,
      postings: postings.map((p) => [p]),
      lengths,
      sameNext,
      ...(live ? { live } : {}),
      ...(allowed ? { allowed } : {}),
    });
    base += excerptCount;
  }
  // Query words: each one or two vocabulary terms (a word's Portuguese and English variants), some said twice.
  const words = 1 + pick(5);
  const termIds = Array.from({ length: words }, (_, w) => {
    // Often the commonest term with rarer ones: the common one then stops mattering once the rarer ones set the bar.
    const first = w === 0 && next() < 0.5 ? 0 : pick(options.vocabulary);
    return next() < 0.4 ? [first, pick(options.vocabulary)] : [first];
  });
  const terms: QueryTerm[] = termIds.map((ids) => ({ variants: ids.map((t) => `t${t}`), count: 1 + pick(2) }));
  for (const s of segments) s.postings = termIds.map((ids) => ids.map((t) => s.postings[t]![0]));
  return { segments, terms, liveExcerpts, avgLength: lengthSum / (liveExcerpts || 1) || 1, avgWindow: 0 };
}

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

/**
 * `s` written as a stored segment (its lengths, the query terms' postings) and opened as search opens a large one:
 * from its tail alone, so that its lengths are read by block when a query's postings need them.
 */
async function storedSegment(s: ScoringSegment, terms: QueryTerm[]) {
  const chunks: Uint8Array[] = [];
  const writer = new SegmentWriter((chunk) => chunks.push(chunk));
  writer.beginDocument({ fileKey: 'k', fileName: 'f.txt', generation: 'g1', language: 'pt' });
  for (let e = 0; e < s.excerptCount; e++) writer.addExcerpt(new Uint8Array(0), s.lengths[e]!);
  const byName = new Map<string, Postings>();
  for (const [w, t] of terms.entries())
    for (const [v, name] of t.variants.entries()) {
      const p = s.postings[w]![v];
      if (p) byName.set(name, p);
    }
  for (const name of [...byName.keys()].sort()) writer.addTerm(name, byName.get(name)!.excerpts, byName.get(name)!.tfs);
  writer.finish();
  const bytes = Buffer.concat(chunks);
  const objects: RangedObjects = {
    getRange: async (_k, start, end) => bytes.subarray(start, Math.min(end, bytes.length)),
    // The trailer only: the tail and everything else come by range.
    getTail: async () => ({ bytes: bytes.subarray(bytes.length - 24), size: bytes.length }),
  };
  return openSegment('segment', objects, unboundedPieces());
}
