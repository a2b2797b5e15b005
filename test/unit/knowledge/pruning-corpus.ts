import type { ScoringSegment } from '#shared/knowledge/index/bm25.ts';
import { SCORING_BLOCK } from '#shared/knowledge/index/block-scorer.ts';
import { openSegment, type RangedObjects, unboundedPieces } from '#shared/knowledge/index/segment.ts';
import type { Postings } from '#shared/knowledge/index/segment-format.ts';
import { SegmentWriter } from '#shared/knowledge/index/segment-writer.ts';
import type { QueryTerm } from '#shared/knowledge/text/analyzer.ts';

/** Random corpora and queries for the ranking tests, and a corpus segment stored and opened as search opens one. */

/** A small deterministic generator, so one seed from fast-check makes a whole corpus. */
export function random(seed: number) {
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

export interface Corpus {
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
export function corpus(seed: number, options: { vocabulary: number; segments: number; ties: boolean }): Corpus {
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

/**
 * `s` written as a stored segment (its lengths, the query terms' postings) and opened as search opens a large one:
 * from its tail alone, so that its lengths are read by block when a query's postings need them.
 */
export async function storedSegment(s: ScoringSegment, terms: QueryTerm[]) {
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
