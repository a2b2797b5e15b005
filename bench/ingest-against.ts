/**
 * Knowledge ingestion's CPU against another checkout, in one process, rounds alternating which goes first: the
 * ingest use case over in-memory stores (bench/ingest.ts's) on (a) bench/ingest.ts's 10 files of about 500 KB and
 * (b) 2,000 help-center articles in batches of 20, merges included. The process's CPU time (all threads) around the
 * ingest calls is what is compared: on a shared, loaded machine wall time mostly measures the neighbours, and two
 * processes run one after the other see different neighbours. A first round warms both up and is not counted.
 * Prints the CPU milliseconds of each round and the rate ratios (base CPU ÷ this checkout's CPU, medians; above 1:
 * faster here).
 * Usage: npx tsx bench/ingest-against.ts --base /path/to/other/checkout [--rounds 5]
 */
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { machine, median, numberArg } from './lib/harness.ts';
import { makeDocument, makeVocabulary, seededRandom } from './search-corpus.ts';

const args = process.argv.slice(2);
const baseAt = args.indexOf('--base');
if (baseAt < 0) throw new Error('usage: npx tsx bench/ingest-against.ts --base DIR [--rounds 5]');
const ROUNDS = numberArg('rounds', 5);
const roots = { here: resolve(import.meta.dirname, '..'), base: resolve(args[baseAt + 1]!) };
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

// Each checkout's own modules (the two are different files, so different module instances). Their types differ
// between versions: only the calls below, stable across them, are used.
type Loose = any;
async function load(root: string): Promise<Loose> {
  const imp = (p: string) => import(`${root}/${p}`);
  return {
    ...(await imp('test/support/fakes/knowledge.ts')),
    ...(await imp('shared/knowledge/manage.ts')),
    ...(await imp('shared/knowledge/ingest.ts')),
    ...(await imp('shared/knowledge/segment-cache.ts')),
    ...(await imp('shared/kernel/logger.ts')),
  };
}
const trees: Record<'here' | 'base', Loose> = { here: await load(roots.here), base: await load(roots.base) };

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const random = seededRandom(7);
const vocabulary = makeVocabulary(40_000, random);
const bulk = Array.from({ length: 10 }, (_, f) => ({
  name: `doc-${f}.txt`,
  type: 'text/plain',
  body: Buffer.from(makeDocument(500_000, f % 2 ? 'en' : 'pt', vocabulary, random)),
}));
const help = seededRandom(31);
const words = makeVocabulary(20_000, help);
const articles = Array.from({ length: 2000 }, (_, j) => ({
  name: `article-${String(j).padStart(5, '0')}.md`,
  type: 'text/markdown',
  body: Buffer.from(
    `# Article ${j}: how to fix issue kb${j}zx\n\n${makeDocument(1_800, j % 3 ? 'en' : 'pt', words, help)}`,
  ),
}));

/** CPU milliseconds the ingest calls took for `files`, uploaded and ingested `batch` at a time into a fresh bot. */
async function run(t: Loose, files: typeof articles, batch: number): Promise<number> {
  const logger = t.createLogger('bench');
  const store = new t.MemoryKnowledge();
  store.addBot('bot', 'prj');
  const objects = new t.MemoryObjects();
  const jobs: unknown[] = [];
  const manage = t.makeKnowledgeManagement({
    requireBot: async () => ({}),
    files: store,
    index: store,
    objects,
    queue: { enqueue: async (j: unknown) => void jobs.push(j) },
    logger,
  });
  const ingest = t.makeIngestKnowledge({
    files: store,
    index: store,
    objects,
    segments: new t.SegmentCache(objects),
    logger,
  });
  let used = 0;
  for (let i = 0; i < files.length; i += batch) {
    for (const f of files.slice(i, i + batch)) await manage.upload('prj', 'bot', f.name, f.type, f.body);
    const c = cpuMs();
    await ingest('bot', jobs.splice(0), { finalAttempt: false });
    used += cpuMs() - c;
  }
  const ready = store.list('bot').filter((f: { status: string }) => f.status === 'ready').length;
  if (ready !== files.length) throw new Error(`only ${ready} of ${files.length} files ready`);
  return used;
}

const out = {
  here: { bulk: [] as number[], scale: [] as number[] },
  base: { bulk: [] as number[], scale: [] as number[] },
};
for (let r = 0; r <= ROUNDS; r++) {
  for (const side of r % 2 ? (['base', 'here'] as const) : (['here', 'base'] as const)) {
    const b = await run(trees[side], bulk, 10);
    const s = await run(trees[side], articles, 20);
    if (r === 0) continue;
    out[side].bulk.push(Math.round(b));
    out[side].scale.push(Math.round(s));
  }
  process.stderr.write(`round ${r} of ${ROUNDS}\n`);
}
console.log(
  JSON.stringify(
    {
      machine: machine(),
      loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
      roots,
      cpuMs: out,
      bulkRateRatio: Number((median(out.base.bulk) / median(out.here.bulk)).toFixed(3)),
      scaleRateRatio: Number((median(out.base.scale) / median(out.here.scale)).toFixed(3)),
    },
    null,
    2,
  ),
);
