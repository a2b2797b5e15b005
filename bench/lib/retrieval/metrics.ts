/**
 * Retrieval metrics as trec_eval / pytrec_eval define them (the measures BEIR reports):
 *
 * - ndcg_cut.k: DCG@k = Σ_{i≤k} gain(d_i) / log2(i + 1) with gain = the qrel grade (linear, trec_eval's default;
 *   negative or missing grades count 0), divided by the DCG@k of the judged documents sorted by grade.
 * - map_cut.k: AP@k = Σ over relevant documents retrieved at rank i ≤ k of P@i, divided by R, the number of
 *   relevant documents (grade ≥ 1) of the query (not min(R, k)).
 * - recall.k: relevant documents retrieved in the top k / R.
 * - recip_rank (cut at k): 1 / rank of the first relevant document in the top k.
 *
 * A run is one ranked list of document ids per query, best first; a repeated id counts at its first rank only
 * (pytrec_eval keys a run by document, so a document cannot appear twice). Means are over every query that has at
 * least one relevant document in the qrels; a query missing from the run, or with an empty list, scores 0
 * (trec_eval -c; pytrec_eval would skip it, BEIR's runs always hold every query).
 */
import { seededRandom } from '#test/support/seeded-random.ts';
import type { Qrels } from './collections.ts';

export type Run = Map<string, readonly string[]>;

export interface MetricSpec {
  name: string;
  fn: (ranked: readonly string[], judged: ReadonlyMap<string, number>) => number;
}

function dedupe(ranked: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of ranked) {
    if (seen.has(d)) continue;
    seen.add(d);
    out.push(d);
  }
  return out;
}

function relevantCount(judged: ReadonlyMap<string, number>): number {
  let r = 0;
  for (const g of judged.values()) if (g >= 1) r++;
  return r;
}

export function ndcgAt(k: number): MetricSpec {
  return {
    name: `ndcg@${k}`,
    fn(ranked, judged) {
      let dcg = 0;
      for (let i = 0; i < Math.min(k, ranked.length); i++) {
        const g = judged.get(ranked[i]!) ?? 0;
        if (g > 0) dcg += g / Math.log2(i + 2);
      }
      const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a);
      let idcg = 0;
      for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
      return idcg > 0 ? dcg / idcg : 0;
    },
  };
}

export function mapAt(k: number): MetricSpec {
  return {
    name: `map@${k}`,
    fn(ranked, judged) {
      const R = relevantCount(judged);
      if (!R) return 0;
      let hits = 0;
      let sum = 0;
      for (let i = 0; i < Math.min(k, ranked.length); i++) {
        if ((judged.get(ranked[i]!) ?? 0) >= 1) {
          hits++;
          sum += hits / (i + 1);
        }
      }
      return sum / R;
    },
  };
}

export function recallAt(k: number): MetricSpec {
  return {
    name: `recall@${k}`,
    fn(ranked, judged) {
      const R = relevantCount(judged);
      if (!R) return 0;
      let hits = 0;
      for (let i = 0; i < Math.min(k, ranked.length); i++) if ((judged.get(ranked[i]!) ?? 0) >= 1) hits++;
      return hits / R;
    },
  };
}

export function mrrAt(k: number): MetricSpec {
  return {
    name: `mrr@${k}`,
    fn(ranked, judged) {
      for (let i = 0; i < Math.min(k, ranked.length); i++) if ((judged.get(ranked[i]!) ?? 0) >= 1) return 1 / (i + 1);
      return 0;
    },
  };
}

export interface Evaluation {
  queries: number;
  mean: Record<string, number>;
  perQuery: Map<string, Record<string, number>>;
}

export function evaluate(run: Run, qrels: Qrels, metrics: MetricSpec[]): Evaluation {
  const perQuery = new Map<string, Record<string, number>>();
  const sums: Record<string, number> = Object.fromEntries(metrics.map((m) => [m.name, 0]));
  for (const [q, judged] of qrels) {
    if (!relevantCount(judged)) continue;
    const ranked = dedupe(run.get(q) ?? []);
    const row: Record<string, number> = {};
    for (const m of metrics) {
      row[m.name] = m.fn(ranked, judged);
      sums[m.name]! += row[m.name]!;
    }
    perQuery.set(q, row);
  }
  const n = perQuery.size;
  return {
    queries: n,
    mean: Object.fromEntries(metrics.map((m) => [m.name, n ? sums[m.name]! / n : 0])),
    perQuery,
  };
}

/** Paired two-sided randomisation test (sign flips) on per-query differences of one metric. */
export function pairedRandomisation(
  a: Map<string, Record<string, number>>,
  b: Map<string, Record<string, number>>,
  metric: string,
  trials = 10_000,
  seed = 1,
): { diff: number; p: number } {
  const d: number[] = [];
  for (const [q, ra] of a) {
    const rb = b.get(q);
    if (rb) d.push(rb[metric]! - ra[metric]!);
  }
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  const rand = seededRandom(seed);
  let extreme = 0;
  for (let i = 0; i < trials; i++) {
    let sum = 0;
    for (const x of d) sum += rand() < 0.5 ? x : -x;
    if (Math.abs(sum) >= observed - 1e-12) extreme++;
  }
  return { diff: d.length ? d.reduce((x, y) => x + y, 0) / d.length : 0, p: (extreme + 1) / (trials + 1) };
}
