import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type QuerySegment, rankReadingLengths } from '#shared/knowledge/index/ranked-lengths.ts';
import { openSegment, type RangedObjects, unboundedPieces } from '#shared/knowledge/index/segment.ts';
import { SegmentWriter } from '#shared/knowledge/index/segment-writer.ts';
import { rankBm25Exhaustive } from './exhaustive-bm25.ts';
import { corpus, storedSegment } from './pruning-corpus.ts';

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
