import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ScoringSegment } from '#shared/knowledge/index/bm25.ts';
import { KnowledgeView } from '#shared/knowledge/index/knowledge-view.ts';
import { type QuerySegment, rankReadingLengths } from '#shared/knowledge/index/ranked-lengths.ts';
import { openSegment, type RangedObjects, unboundedPieces } from '#shared/knowledge/index/segment.ts';
import { LENGTH_BLOCK } from '#shared/knowledge/index/segment-format.ts';
import { SegmentWriter } from '#shared/knowledge/index/segment-writer.ts';
import { queryTerms } from '#shared/knowledge/text/analyzer.ts';
import { rankBm25Exhaustive } from './exhaustive-bm25.ts';
import { corpus, random, storedSegment } from './pruning-corpus.ts';

/**
 * A format-6 segment's excerpt lengths are read only for the blocks whose excerpts can still enter a query's top
 * (bounded from below and above by each block of lengths' longest and shortest, kept in the tail), and the answer is
 * the one scoring every excerpt with every length gives.
 */
describe('excerpt lengths read only where the top can be', () => {
  test('the same top k as scoring every excerpt, with some blocks of lengths never read', async () => {
    let unread = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.boolean(),
        fc.constantFrom(0, 0.5, 1),
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(1_000_000)),
        async (seed, ties, context, limit) => {
          const c = corpus(seed, { vocabulary: 12, segments: 1 + (seed % 3), ties });
          const stats = { liveExcerpts: c.liveExcerpts, avgLength: c.avgLength, avgWindow: 2.7 * c.avgLength };
          const full = rankBm25Exhaustive(c.segments, c.terms, stats, { context }, limit);
          const variants = c.terms.flatMap((t) => t.variants);
          const querying: QuerySegment[] = [];
          for (const s of c.segments) {
            const reader = await storedSegment(s, c.terms);
            const lengths = await reader.searchLengths();
            const postings = await reader.postings(variants);
            let v = 0;
            const byWord = c.terms.map((t) => t.variants.map(() => postings[v++]));
            querying.push({ scoring: { ...s, lengths, postings: byWord }, reader, postings });
          }
          expect(await rankReadingLengths(querying, c.terms, stats, { context }, limit)).toEqual(full);
          for (const [k, { scoring }] of querying.entries())
            if (scoring.lengths.some((l, e) => l !== c.segments[k]!.lengths[e])) unread++;
        },
      ),
      { numRuns: 40 },
    );
    // Most queries pair a common word with rarer ones: those runs left the common word's other blocks unread.
    expect(unread).toBeGreaterThan(0);
  });

  test('a common word beside a rarer one: the lengths around the rarer one are read, not every block', async () => {
    // 64 blocks of lengths; "casa" in every third excerpt, "zumbirova" in 40 excerpts of block 10.
    const excerptCount = 64 * LENGTH_BLOCK;
    const next = random(7);
    const lengths = Uint16Array.from({ length: excerptCount }, () => 5 + Math.floor(next() * 60));
    const [common] = queryTerms('casa')[0]!.variants;
    const [rare] = queryTerms('zumbirova')[0]!.variants;
    const commonAt = Uint32Array.from({ length: excerptCount / 3 }, (_, i) => 3 * i);
    const rareAt = Uint32Array.from({ length: 40 }, (_, i) => 10 * LENGTH_BLOCK + 7 + 11 * i);
    const tfsOf = (n: number) => Uint8Array.from({ length: n }, () => 1 + Math.floor(next() * 3));
    const postings = [
      { term: common!, excerpts: commonAt, tfs: tfsOf(commonAt.length) },
      { term: rare!, excerpts: rareAt, tfs: tfsOf(rareAt.length) },
    ].sort((a, b) => (a.term < b.term ? -1 : 1));
    const chunks: Uint8Array[] = [];
    const writer = new SegmentWriter((chunk) => chunks.push(chunk));
    writer.beginDocument({ fileKey: 'k', fileName: 'f.txt', generation: 'g1', language: 'pt' });
    for (let e = 0; e < excerptCount; e++) writer.addExcerpt(new Uint8Array(0), lengths[e]!);
    for (const p of postings) writer.addTerm(p.term, p.excerpts, p.tfs);
    writer.finish();
    const bytes = Buffer.concat(chunks);
    const reads: [number, number][] = [];
    const objects: RangedObjects = {
      getRange: async (_k, start, end) => {
        reads.push([start, end]);
        return bytes.subarray(start, Math.min(end, bytes.length));
      },
      // The trailer only: the tail and everything else come by range, as for a large segment.
      getTail: async () => ({ bytes: bytes.subarray(bytes.length - 24), size: bytes.length }),
    };
    const reader = await openSegment('segment', objects, unboundedPieces());
    const { meta, layout } = reader as unknown as { meta: { lengthsAt: number }; layout: { lengthAt: Uint32Array } };
    const view = await KnowledgeView.open([{ id: 's', segment: reader }]);
    reads.length = 0;
    const ranked = await view.rank('casa zumbirova', { limit: 20 });

    const lengthsEnd = meta.lengthsAt + layout.lengthAt.at(-1)!;
    expect(lengthsEnd - meta.lengthsAt).toBe(excerptCount); // one byte per length: all are under 256
    const lengthBytes = reads.reduce(
      (n, [start, end]) => n + Math.max(0, Math.min(end, lengthsEnd) - Math.max(start, meta.lengthsAt)),
      0,
    );
    // Block 10 and its neighbours at most, not the 32 KB of every block "casa" reaches.
    expect(lengthBytes).toBeGreaterThan(0);
    expect(lengthBytes).toBeLessThanOrEqual(3 * LENGTH_BLOCK);
    const terms = queryTerms('casa zumbirova');
    const byTerm = new Map(postings.map((p) => [p.term, p]));
    const segment: ScoringSegment = {
      base: 0,
      excerptCount,
      postings: terms.map((t) => t.variants.map((v) => byTerm.get(v))),
      lengths,
      sameNext: new Uint8Array(excerptCount).fill(1, 0, excerptCount - 1),
    };
    const sum = lengths.reduce((a, b) => a + b, 0);
    let windows = 0;
    for (let e = 0; e < excerptCount; e++)
      windows += lengths[e]! + (e > 0 ? lengths[e - 1]! : 0) + (e < excerptCount - 1 ? lengths[e + 1]! : 0);
    const stats = { liveExcerpts: excerptCount, avgLength: sum / excerptCount, avgWindow: windows / excerptCount };
    expect(ranked).toEqual(rankBm25Exhaustive([segment], terms, stats, {}, 20));
  });
});

describe('opening a segment whose tail is longer than the first read', () => {
  test('reads no byte twice: the second read stops where the first began', async () => {
    // 1,500 documents with long names: a tail of ~400 KB, past the first read's 128 KB.
    const chunks: Uint8Array[] = [];
    const writer = new SegmentWriter((chunk) => chunks.push(chunk));
    for (let d = 0; d < 1500; d++) {
      writer.beginDocument({
        fileKey: `k${d}`,
        fileName: `${'n'.repeat(200)}-${d}.txt`,
        generation: 'g',
        language: 'pt',
      });
      writer.addExcerpt(new TextEncoder().encode(`texto ${d}`), 2);
    }
    writer.addTerm(
      'texto',
      Uint32Array.from({ length: 1500 }, (_, i) => i),
      new Uint8Array(1500).fill(1),
    );
    writer.finish();
    const bytes = Buffer.concat(chunks);
    const tailLength = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 24).getUint32(8, true);
    expect(tailLength).toBeGreaterThan(128 * 1024);
    const reads: [number, number][] = [];
    const objects: RangedObjects = {
      getRange: async (_k, start, end) => {
        reads.push([start, end]);
        return bytes.subarray(start, Math.min(end, bytes.length));
      },
      getTail: async (_k, length) => {
        reads.push([bytes.length - length, bytes.length]);
        return { bytes: bytes.subarray(bytes.length - length), size: bytes.length };
      },
    };
    const reader = await openSegment('segment', objects, unboundedPieces());
    expect(reader.docs).toHaveLength(1500);
    expect(reads).toHaveLength(2);
    expect(reads[1]![1]).toBe(reads[0]![0]);
    expect(reads.reduce((n, [a, b]) => n + b - a, 0)).toBe(tailLength + 24);
  });
});
