/**
 * Knowledge ranking's CPU per query, pruned (shared/knowledge/index/bm25.ts) against scoring every excerpt (the
 * previous scorer, kept as the tests' oracle), in the same process on the same postings: the same-run ratio of the
 * ranking alone, without HTTP, the caches or the reads (bench/knowledge-gb.ts measures those).
 *
 * The postings are synthetic, shaped as bench/lib/zipf-corpus.ts's text gives them: about 170 words per excerpt of
 * 1,000 characters, word ranks drawn by Zipf's law (exponent 1 over the stop words and the 50,000 commonest content
 * words, so the commonest content word is in about 5 % of the excerpts), term frequencies mostly 1, excerpt lengths
 * around 86 index terms, files of about 1,000 excerpts. Queries: 1 to 5 content words drawn the same way.
 * Usage: npx tsx bench/knowledge-pruning.ts [--excerpts 1500000] [--segments 10] [--queries 200] [--limit 20]
 */
import { type QueryTerm, rankBm25, type ScoringSegment } from '#shared/knowledge/index.ts';
import { rankBm25Exhaustive } from '#test/unit/knowledge/exhaustive-bm25.ts';
import { seededRandom } from '#test/support/seeded-random.ts';
import { numberArg } from './lib/harness.ts';

const EXCERPTS = numberArg('excerpts', 1_500_000);
const SEGMENTS = numberArg('segments', 10);
const QUERIES = numberArg('queries', 200);
const LIMIT = numberArg('limit', 20);
const STOP_WORDS = 300;
const HEAD_CONTENT = 50_000;
const WORDS_PER_EXCERPT = 170;

const random = seededRandom(20_261_202);

/** A content word's rank (0 = commonest), drawn as a query draws it. */
function contentRank(): number {
  for (;;) {
    const rank = Math.floor((STOP_WORDS + HEAD_CONTENT) ** random()) - 1;
    if (rank >= STOP_WORDS) return rank - STOP_WORDS;
  }
}

const sizes = Array.from(
  { length: SEGMENTS },
  (_, s) => Math.floor(EXCERPTS / SEGMENTS) + (s === 0 ? EXCERPTS % SEGMENTS : 0),
);
const lengths = sizes.map((n) => Uint16Array.from({ length: n }, () => 60 + Math.floor(random() * 52)));
const sameNext = sizes.map((n) => Uint8Array.from({ length: n }, (_, e) => (e % 1000 === 999 || e === n - 1 ? 0 : 1)));

/** One word's postings in every segment: each excerpt holds it with the chance its rank gives. */
function postingsOf(rank: number) {
  const lambda = WORDS_PER_EXCERPT / ((rank + STOP_WORDS + 1) * Math.log(STOP_WORDS + HEAD_CONTENT));
  const p = 1 - Math.exp(-lambda);
  return sizes.map((n) => {
    const excerpts: number[] = [];
    const tfs: number[] = [];
    // Geometric gaps between the excerpts that hold it.
    for (let e = Math.floor(Math.log(1 - random()) / Math.log(1 - p)); e < n; ) {
      excerpts.push(e);
      tfs.push(1 + (random() < lambda / 2 ? 1 : 0) + (random() < lambda / 8 ? 1 : 0));
      e += 1 + Math.floor(Math.log(1 - random()) / Math.log(1 - p));
    }
    return excerpts.length ? { excerpts: Uint32Array.from(excerpts), tfs: Uint8Array.from(tfs) } : undefined;
  });
}

const byRank = new Map<number, ReturnType<typeof postingsOf>>();
const queries = Array.from({ length: QUERIES }, () =>
  Array.from({ length: 1 + Math.floor(random() * 5) }, contentRank),
);
for (const q of queries) for (const r of q) if (!byRank.has(r)) byRank.set(r, postingsOf(r));

let lengthSum = 0;
for (const l of lengths) for (const x of l) lengthSum += x;
const stats = { liveExcerpts: EXCERPTS, avgLength: lengthSum / EXCERPTS, avgWindow: (3 * lengthSum) / EXCERPTS };

function run(rank: typeof rankBm25): { msPerQuery: number; results: string[] } {
  const results: string[] = [];
  const start = process.cpuUsage();
  for (const q of queries) {
    const ranks = [...new Set(q)];
    const terms: QueryTerm[] = ranks.map((r) => ({ variants: [`w${r}`], count: q.filter((x) => x === r).length }));
    let base = 0;
    const segments: ScoringSegment[] = sizes.map((n, s) => {
      const segment = {
        base,
        excerptCount: n,
        postings: ranks.map((r) => [byRank.get(r)![s]]),
        lengths: lengths[s]!,
        sameNext: sameNext[s]!,
      };
      base += n;
      return segment;
    });
    results.push(JSON.stringify(rank(segments, terms, stats, {}, LIMIT)));
  }
  const used = process.cpuUsage(start);
  return { msPerQuery: (used.user + used.system) / 1000 / QUERIES, results };
}

const rounds = numberArg('rounds', 3);
const pruned: number[] = [];
const exhaustive: number[] = [];
for (let round = 0; round < rounds; round++) {
  const a = run(rankBm25Exhaustive);
  const b = run(rankBm25);
  if (a.results.some((r, i) => r !== b.results[i])) throw new Error('pruned ranking differs from exhaustive');
  exhaustive.push(a.msPerQuery);
  pruned.push(b.msPerQuery);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const postings = [...byRank.values()].flat().reduce((n, p) => n + (p?.excerpts.length ?? 0), 0);
console.log(
  JSON.stringify({
    excerpts: EXCERPTS,
    segments: SEGMENTS,
    queries: QUERIES,
    limit: LIMIT,
    postingsPerQuery: Math.round(postings / QUERIES),
    exhaustiveCpuMsPerQuery: +median(exhaustive).toFixed(2),
    prunedCpuMsPerQuery: +median(pruned).toFixed(2),
    ratio: +(median(pruned) / median(exhaustive)).toFixed(3),
    rounds: { exhaustive: exhaustive.map((x) => +x.toFixed(2)), pruned: pruned.map((x) => +x.toFixed(2)) },
  }),
);
