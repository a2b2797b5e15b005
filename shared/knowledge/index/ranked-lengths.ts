import type { QueryTerm } from '../text/analyzer.ts';
import { blocksInReach, type CorpusStats, type RankingOptions, rankBm25, type ScoringSegment } from './bm25.ts';
import type { Postings } from './segment-format.ts';
import type { SegmentReader } from './segment-reading.ts';
import type { ScoredExcerpt } from './top-excerpts.ts';

/** One segment of a query: what scoring reads of it, its reader, and the postings of the query's terms in it. */
export interface QuerySegment {
  scoring: ScoringSegment;
  reader: SegmentReader;
  postings: readonly (Postings | undefined)[];
}

/**
 * The `limit` best excerpts by BM25 (./bm25.ts), reading the excerpt lengths of a format-6 segment only where an
 * excerpt can still enter the top, instead of around every posting of the query (a common word's postings reach
 * every block of lengths, so a cold query read them all: 2 bytes per excerpt of the bot).
 *
 * The tail of a format-6 segment holds the shortest and the longest length of each block of lengths. With them:
 * 1. every excerpt's score is bounded from below without reading a length, by scoring it with each unread length
 *    taken as its block's longest (BM25 falls as an excerpt gets longer); the `limit`-th best of these lower bounds is
 *    a score the true `limit`-th best reaches;
 * 2. the blocks of excerpts whose best possible score (bounds from each block's shortest length) reaches that bar
 *    are the only ones that can enter the top: their lengths are read, in one round;
 * 3. those blocks are scored exactly, the others skipped.
 * The answer is the one scoring every excerpt gives (same excerpts, order and scores). A segment whose lengths the
 * query needs are all read already, or of an older format, is scored as before.
 */
export async function rankReadingLengths(
  segments: QuerySegment[],
  terms: QueryTerm[],
  stats: CorpusStats,
  options: RankingOptions,
  limit: number,
): Promise<ScoredExcerpt[]> {
  const ranged = segments.map(
    ({ reader, postings }) => (reader.lengthFloors && !reader.lengthsCovered(postings)) || false,
  );
  // The others read their lengths around every posting, as before (a no-op when they hold them).
  await Promise.all(segments.map(({ reader, postings }, k) => (ranged[k] ? undefined : reader.coverLengths(postings))));
  const exact = segments.map((s) => s.scoring);
  if (!ranged.includes(true)) return rankBm25(exact, terms, stats, options, limit);

  const lower = segments.map(({ scoring, reader }, k): ScoringSegment => {
    if (!ranged[k]) return scoring;
    return { ...scoring, lengths: reader.lengthCeilings()!, lengthFloors: reader.lengthFloors! };
  });
  const lowest = rankBm25(lower, terms, stats, options, limit);
  const bar = lowest.length === limit && limit > 0 ? lowest.at(-1)!.score : Number.NEGATIVE_INFINITY;

  const bounded = segments.map(({ scoring, reader }, k): ScoringSegment => {
    if (!ranged[k]) return scoring;
    return { ...scoring, lengthFloors: reader.lengthFloors! };
  });
  const reach = blocksInReach(bounded, terms, stats, options, bar);
  await Promise.all(
    segments.map(({ reader, postings }, k) => (ranged[k] ? reader.coverLengths(postings, reach[k]) : undefined)),
  );
  return rankBm25(bounded, terms, stats, options, limit, bar);
}
