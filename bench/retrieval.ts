/**
 * Retrieval quality of the knowledge search (bench/history/2026-11-knowledge-at-scale.md), on public IR test collections with relevance judgements,
 * beside two well-kept JS BM25 engines run in the same process over the same documents:
 * - BEIR SciFact (5,183 abstracts, 300 test claims; published BM25 nDCG@10 0.665, BEIR paper, Elasticsearch);
 * - optionally CISI and Cranfield (`--collections scifact,cisi,cranfield`), internal checks;
 * - a long-file stress test (`--long 10,50`): SciFact's abstracts packed in seeded random order into files of G
 *   abstracts, each excerpt credited to the abstract it overlaps most, judged by SciFact's qrels: what bots with few
 *   long files see, which the collections (1 to 3 excerpts per document) do not show.
 * Reports nDCG@10, MAP@100 and recall at the API's depth (topK 8) and at 100 (trec_eval definitions,
 * bench/lib/retrieval/metrics.ts), and Δ nDCG@10 (depth 8) against the project with every ranking choice off (the
 * search before those choices) with a paired randomisation test. No parameter is tuned on these queries: BM25 k1 1.2, b 0.75.
 *
 * With `--hybrid` and an embeddings model configured as for the service (`EMBEDDINGS_PROVIDER`, EMBEDDINGS_*), the
 * hybrid engine (lexical + dense, reciprocal rank fusion, as the search route) runs beside them; without a model it
 * is skipped, saying so.
 *
 * Data: never committed (see bench/lib/retrieval/collections.ts). `RETRIEVAL_DATA_DIR` = the SciFact folder
 * (default ../shared/data/scifact beside the repository); without it the bench says so and exits 0.
 * Usage: npx tsx bench/retrieval.ts [--collections scifact,cisi,cranfield] [--long 10,50] [--ablations]
 *        [--engines project,before,wink,minisearch] [--json out.json]
 */
import { writeFileSync } from 'node:fs';
import { embeddingsFromSettings, modelSettings } from '#shared/model-providers/index.ts';
import { loadavg } from 'node:os';
import { seededRandom } from '#test/support/seeded-random.ts';
import { argValue, machine } from './lib/harness.ts';
import {
  collectionAvailable,
  type Collection,
  loadCollection,
  loadSciFact,
  scifactDir,
} from './lib/retrieval/collections.ts';
import {
  API_TOP_K,
  type Engine,
  fileInput,
  HybridEngine,
  miniSearchEngine,
  type ProjectEngine,
  projectEngine,
  winkEngine,
} from './lib/retrieval/engines.ts';
import { type Evaluation, evaluate, mapAt, ndcgAt, pairedRandomisation, recallAt } from './lib/retrieval/metrics.ts';
import { normalizeText } from '#shared/knowledge/index.ts';

/** Published BM25 (Elasticsearch, BEIR paper, Thakur et al. 2021) nDCG@10 on each collection, where there is one. */
const PUBLISHED_BM25: Record<string, number> = { scifact: 0.665 };

const collections = (argValue('collections') ?? 'scifact').split(',');
const longGroups = (argValue('long') ?? '10,50').split(',').filter(Boolean).map(Number);
const ablations = process.argv.includes('--ablations');
const jsonOut = argValue('json');
// The service's embeddings settings (EMBEDDINGS_*) read as the functions read them; the rest of the configuration
// does not matter to the bench.
const hybridModel = process.argv.includes('--hybrid')
  ? embeddingsFromSettings({ AWS_REGION: process.env.AWS_REGION ?? 'us-east-1' }, modelSettings.parse(process.env))
  : undefined;
if (process.argv.includes('--hybrid') && !hybridModel)
  console.error('hybrid engine skipped: no embeddings model configured (set EMBEDDINGS_PROVIDER and its settings)');

const missing = collections.filter((c) => !collectionAvailable(c));
if (missing.length) {
  console.log(
    `retrieval bench skipped: no data for ${missing.join(', ')} under ${scifactDir()} (and its siblings). ` +
      'The collections are not in the repository: set RETRIEVAL_DATA_DIR to a SciFact folder in BEIR form ' +
      '(corpus.jsonl.gz, queries.test.jsonl, qrels.test.tsv), as the steering repository keeps in shared/data/scifact.',
  );
  process.exit(0);
}

interface Row {
  collection: string;
  engine: string;
  key: string;
  'ndcg@10 (8)': number;
  'ndcg@10 (8 slots)': number;
  'ndcg@10 (100)': number;
  'map@100': number;
  'recall@8': number;
  'recall@100': number;
  'docs in top 8': number;
  buildS: number;
  queryMsP50: number;
  delta?: { diff: number; p: number };
}

/** The engines of every run; the first project engine with all choices off is the "before" baseline. */
function engines(): [string, () => Engine][] {
  const list: [string, () => Engine][] = [
    ['project', () => projectEngine('project (this branch)')],
    [
      'before',
      () =>
        projectEngine('project, choices off (the search before them)', {
          queryTermFrequency: false,
          context: 0,
          diversity: false,
        }),
    ],
    ['wink', winkEngine],
    ['minisearch', miniSearchEngine],
  ];
  if (hybridModel) list.push(['hybrid', () => new HybridEngine(hybridModel)]);
  const only = argValue('engines')?.split(',');
  if (only) return list.filter(([k]) => only.includes(k));
  if (ablations)
    list.push(
      ['no-qtf', () => projectEngine('project without query term frequency', { queryTermFrequency: false })],
      ['no-context', () => projectEngine('project without the neighbourhood score', { context: 0 })],
      ['no-diversity', () => projectEngine('project without diversity in the top 8', { diversity: false })],
      ['segments', () => projectEngine('project, index in 37 segments', {}, 37)],
    );
  return list;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

async function measure(
  c: Collection,
  key: string,
  engine: Engine,
  build: () => void | Promise<void>,
): Promise<{ row: Row; per: Evaluation }> {
  const t0 = performance.now();
  await build();
  const buildS = (performance.now() - t0) / 1000;
  const shallow = new Map<string, string[]>();
  const slots = new Map<string, string[]>();
  const deep = new Map<string, string[]>();
  const times: number[] = [];
  for (const q of c.queries.filter((x) => c.qrels.has(x.id))) {
    const s = performance.now();
    const r = await engine.search(q.text);
    times.push(performance.now() - s);
    shallow.set(q.id, r.shallow);
    deep.set(q.id, r.deep);
    // A slot repeating a document shown above it gains nothing but keeps its place.
    const seen = new Set<string>();
    slots.set(
      q.id,
      r.slots.map((d, i) => {
        if (seen.has(d)) return `\u0000repeat${i}`;
        seen.add(d);
        return d;
      }),
    );
  }
  const es = evaluate(shallow, c.qrels, [ndcgAt(10), recallAt(8)]);
  const eslots = evaluate(slots, c.qrels, [ndcgAt(10)]);
  const ed = evaluate(deep, c.qrels, [ndcgAt(10), mapAt(100), recallAt(100)]);
  let distinct = 0;
  for (const l of shallow.values()) distinct += l.length;
  return {
    per: es,
    row: {
      collection: c.name,
      engine: engine.name,
      key,
      'ndcg@10 (8)': es.mean['ndcg@10']!,
      'ndcg@10 (8 slots)': eslots.mean['ndcg@10']!,
      'ndcg@10 (100)': ed.mean['ndcg@10']!,
      'map@100': ed.mean['map@100']!,
      'recall@8': es.mean['recall@8']!,
      'recall@100': ed.mean['recall@100']!,
      'docs in top 8': distinct / shallow.size,
      buildS,
      queryMsP50: quantile(times, 0.5),
    },
  };
}

const rows: Row[] = [];
for (const name of collections) {
  const c = loadCollection(name);
  console.error(`${name}: ${c.docs.length} documents, ${c.queries.length} queries`);
  const per = new Map<string, Evaluation>();
  for (const [key, make] of engines()) {
    const engine = make();
    const { row, per: e } = await measure(c, key, engine, () => engine.build(c.docs));
    per.set(key, e);
    rows.push(row);
    console.error(`  ${row.engine.padEnd(52)} nDCG@10 (8) ${row['ndcg@10 (8)'].toFixed(3)}`);
  }
  if (per.has('before'))
    for (const row of rows.filter((r) => r.collection === name && r.key !== 'before'))
      row.delta = pairedRandomisation(per.get('before')!.perQuery, per.get(row.key)!.perQuery, 'ndcg@10');
}

// Long files: the project's choices where a file holds many excerpts (SciFact abstracts packed G to a file).
const longRows: Row[] = [];
if (longGroups.length) {
  const c = loadSciFact();
  for (const G of longGroups) {
    const { inputs, unit } = packedFiles(c, G);
    const per = new Map<string, Evaluation>();
    for (const [key, make] of engines().filter(([k]) => !['wink', 'minisearch', 'hybrid'].includes(k))) {
      const engine = make() as ProjectEngine;
      const { row, per: e } = await measure(
        { ...c, name: `scifact, ${G} abstracts per file` },
        key,
        engine,
        async () => {
          await engine.buildFrom(inputs);
          engine.unitOf = (x) => unit(engine, x);
        },
      );
      per.set(key, e);
      longRows.push(row);
      console.error(`  G=${G} ${row.engine.padEnd(48)} nDCG@10 (8) ${row['ndcg@10 (8)'].toFixed(3)}`);
    }
    for (const row of longRows.filter((r) => r.collection.includes(` ${G} `) && r.key !== 'before'))
      row.delta = pairedRandomisation(per.get('before')!.perQuery, per.get(row.key)!.perQuery, 'ndcg@10');
  }
}

/** Files of G abstracts (seeded shuffle), and the abstract each excerpt overlaps most. */
function packedFiles(c: Collection, G: number) {
  const order = shuffled(c.docs, 42);
  const inputs = [];
  const owner = new Map<string, string[]>();
  for (let i = 0; i < order.length; i += G) {
    let text = '';
    const abstracts: { id: string; start: number; end: number }[] = [];
    for (const d of order.slice(i, i + G)) {
      const block = normalizeText(`${d.title}\n\n${d.text}`);
      if (text) text += '\n\n';
      abstracts.push({ id: d.id, start: text.length, end: text.length + block.length });
      text += block;
    }
    const input = { ...fileInput(`file-${i / G}.txt`, text), generation: String(i) };
    // Each excerpt's position in the file text: at or after the previous one's start.
    let from = 0;
    const owners: string[] = [];
    for (const e of input.excerpts) {
      let at = text.indexOf(e, from);
      if (at < 0) at = text.indexOf(e);
      from = at + 1;
      let best = abstracts[0]!;
      let bestOverlap = -1;
      for (const a of abstracts) {
        const overlap = Math.min(a.end, at + e.length) - Math.max(a.start, at);
        if (overlap > bestOverlap) [bestOverlap, best] = [overlap, a];
      }
      owners.push(best.id);
    }
    owner.set(input.fileName, owners);
    inputs.push(input);
  }
  const unit = (engine: ProjectEngine, excerpt: number) =>
    owner.get(engine.view.docOf(excerpt).fileName)![engine.view.positionInDoc(excerpt)]!;
  return { inputs, unit };
}

function shuffled<T>(xs: T[], seed: number): T[] {
  const a = [...xs];
  const rand = seededRandom(seed);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const f = (x: number) => x.toFixed(3);
const delta = (r: Row) =>
  r.delta ? `${r.delta.diff >= 0 ? '+' : ''}${r.delta.diff.toFixed(3)} (p ${r.delta.p.toFixed(3)})` : '—';
console.log(
  `machine: ${machine()}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}; top K ${API_TOP_K}\n`,
);
console.log(
  '| collection | engine | nDCG@10 (depth 8) | nDCG@10 (8 slots) | nDCG@10 (depth 100) | MAP@100 | R@8 | R@100 | docs in top 8 | Δ nDCG@10 (8) vs before (p) | build s | query p50 ms |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of [...rows, ...longRows]) {
  console.log(
    `| ${r.collection} | ${r.engine} | ${f(r['ndcg@10 (8)'])} | ${f(r['ndcg@10 (8 slots)'])} | ${f(r['ndcg@10 (100)'])} | ${f(r['map@100'])} | ${f(r['recall@8'])} | ${f(r['recall@100'])} | ${r['docs in top 8'].toFixed(2)} | ${delta(r)} | ${r.buildS.toFixed(2)} | ${r.queryMsP50.toFixed(2)} |`,
  );
}
for (const name of collections) {
  if (PUBLISHED_BM25[name] !== undefined)
    console.log(`\npublished BM25 on ${name} (BEIR, Elasticsearch): nDCG@10 ${PUBLISHED_BM25[name]!.toFixed(3)}`);
  const mine = rows.find((r) => r.collection === name && r.key === 'project')!;
  const best = rows
    .filter((r) => r.collection === name && (r.key === 'wink' || r.key === 'minisearch'))
    .sort((a, b) => b['ndcg@10 (8)'] - a['ndcg@10 (8)'])[0];
  if (!best) continue;
  console.log(
    `${name}: project ${mine['ndcg@10 (8)'].toFixed(4)} vs best plain BM25 engine in this run (${best.engine}) ${best['ndcg@10 (8)'].toFixed(4)} at depth 8: ${mine['ndcg@10 (8)'] >= best['ndcg@10 (8)'] ? 'at or above' : 'BELOW'}`,
  );
}
if (jsonOut)
  writeFileSync(
    jsonOut,
    JSON.stringify({ date: new Date().toISOString(), machine: machine(), rows, longRows }, null, 2),
  );
