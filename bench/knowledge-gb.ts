/**
 * A bot's knowledge at 100 MB, 500 MB and 1 GB of text, searched over HTTP with bounded memory.
 *
 * The corpus is generated (bench/lib/zipf-corpus.ts: Zipf-distributed words, Portuguese and English stop words as
 * the head, a million content words) and built once through the ingest path (bench/knowledge-gb-build.ts says what
 * is bypassed); the stand-ins' data is kept under `--data` (default `.bench-data/knowledge-gb`, gitignored) and
 * reused by later runs. One bot grows through the sizes; each size's segment list (as the size-tiered merges left
 * it) is listed on a bot of its own. Then, per size:
 * - warm search: the search function alone in a process of its own (bench/lib/search-server.ts, the local gateway,
 *   the function's memory setting of 1,769 MB given as Lambda gives it), `--queries` sequential
 *   `POST /api/v1/ai/search` (topK 5) asked once to fill the caches, then again: p50 / p99 per response, the
 *   process's CPU per query, the bucket reads per query; then `--queries` never asked before (what the caches left by
 *   that traffic give a new question); its resident memory sampled throughout (max VmRSS) and its peak (VmHWM)
 *   (targets: warm p50 <= 20 ms, p99 <= 100 ms, memory <= 400 MB at every size);
 * - the anchor, in the same run: the same on a bot of one small file (gateway, authentication, rate limit and bot read
 *   without an index to speak of), since the machine is shared;
 * - cold search: `--cold` fresh processes, each answering one query with empty caches: p50 / p99, and the requests
 *   and bytes it read from the bucket (through a counting proxy in front of the S3 stand-in), from which its time on
 *   S3 follows (target p99 <= 2 s here);
 * - a merge of the whole 1 GB bot into one segment in a process of its own: time and peak RSS (target <= 512 MB);
 *   the merged bot is searched too ("1000, one segment").
 * Each size is built, then measured, before the next is built; the build resumes where a cached one stopped.
 * `--memory` is the function memory the search process is given (default 1,769, the search function's; 1,024 is
 * completion's, chat's and responses', whose knowledge caches are sized from it).
 * `--direct` builds straight into segments of 100 MB of text each (`--segment-mb`; bench/knowledge-gb-build.ts),
 * skipping the size-tiered merges: a 1 GB bot in ten segments in a fraction of the ingest path's time, kept in a
 * data folder of its own (default `.bench-data/knowledge-gb-direct`). `--rewrite` first rewrites, once, every
 * measured bot's segments written in an older format (data built by an earlier version) in the current format.
 * `--build-only` builds what is missing of every size and measures nothing (the merge is built by the measuring run);
 * with `--rewrite`, it rewrites the segments of an older format too; with `--merge`, it makes the merged bot.
 * `--cold 0` skips the cold measure (warm search alone: the built data is kept under `--data` and reused).
 * Usage: npx tsx bench/knowledge-gb.ts [--sizes 100,500,1000] [--queries 300] [--cold 20] [--data DIR] [--rebuild]
 *   [--no-merge] [--direct] [--rewrite] [--build-only [--merge]]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { SEGMENT_FORMAT } from '#shared/knowledge/index.ts';
import { addAnchorSegment } from './lib/anchor-segment.ts';
import { countingProxy } from './lib/counting-proxy.ts';
import { startIndexService } from './lib/index-service.ts';
import { machine, median, numberArg } from './lib/harness.ts';
import { NODE_ARGS, repo, searchOnce, startSearchProcess, stopSearchProcess } from './lib/search-process.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const SIZES = (option('sizes') ?? '100,500,1000').split(',').map(Number);
const QUERIES = numberArg('queries', 300);
const COLD = numberArg('cold', 20);
const DIRECT = args.includes('--direct');
/** Text per segment of a direct build (100 MB: a 1 GB bot in ten segments). */
const SEGMENT_MB = numberArg('segment-mb', 100);
const DATA = resolve(option('data') ?? (DIRECT ? '.bench-data/knowledge-gb-direct' : '.bench-data/knowledge-gb'));
/** Bump when the corpus, the segment format or the build changes: a cached build of another version is rebuilt. */
const BUILD_VERSION = 1;
const FUNCTION_MEMORY_MB = numberArg('memory', 1769);

interface Manifest {
  version: number;
  projectId: string;
  token: string;
  /** The bot that grows through the sizes, and how far it has grown. */
  growing: string;
  filesDone: number;
  textDone: number;
  /** Each measured bot by label, and how each size was built. */
  bots: Record<string, string>;
  stages: Record<string, unknown>;
  merge?: unknown;
  /** Built straight into segments of 100 MB of text (`--direct`). */
  direct?: boolean;
}

const manifestPath = join(DATA, 'manifest.json');
let kept: Manifest | undefined = existsSync(manifestPath)
  ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest)
  : undefined;
if (args.includes('--rebuild') || kept?.version !== BUILD_VERSION) {
  rmSync(DATA, { recursive: true, force: true });
  kept = undefined;
}
if (kept && Boolean(kept.direct) !== DIRECT)
  throw new Error(`${DATA} was built ${kept.direct ? 'with' : 'without'} --direct: give the same, or another --data`);
mkdirSync(DATA, { recursive: true });

const { svc, admin, index, stop: stopService } = await startIndexService(DATA);

/** Runs a node script of the repository; resolves with the last line it printed (JSON). */
function runScript(script: string, scriptArgs: string[]): Promise<any> {
  return new Promise((done, fail) => {
    // Not a function: no per-invocation scope for the logger (the runner set it for its own functions).
    const { AWS_LAMBDA_MAX_CONCURRENCY: _scoped, ...inherited } = process.env;
    const child = spawn(process.execPath, [...NODE_ARGS, script, ...scriptArgs], {
      cwd: repo,
      env: inherited,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.on('exit', (code) =>
      code === 0 ? done(JSON.parse(out.trim().split('\n').at(-1)!)) : fail(new Error(`${script} exited ${code}`)),
    );
  });
}

async function newProject(): Promise<Manifest> {
  const project = await admin('POST', '/projects', { companyId: 4242, name: 'knowledge-gb', monthlyBotCredits: 0 });
  const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
  return {
    version: BUILD_VERSION,
    projectId: project.projectId,
    token,
    growing: await newBot(project.projectId, 'growing'),
    filesDone: 0,
    textDone: 0,
    bots: {},
    stages: {},
    ...(DIRECT ? { direct: true } : {}),
  };
}

async function newBot(projectId: string, name: string): Promise<string> {
  return (await admin('POST', `/projects/${projectId}/bots`, { name, instructions: 'x' })).botId as string;
}

const manifest: Manifest = kept ?? (await newProject());
const save = () => writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
save();

/** Grows the bot to `size` MB (unless a earlier run did) and lists that state on a bot of its own. */
async function stage(size: number): Promise<string> {
  const label = String(size);
  if (manifest.bots[label]) return manifest.bots[label];
  const bot = await newBot(manifest.projectId, `knowledge ${size} MB`);
  console.error(`building ${size} MB of text (kept in ${DATA})`);
  const built = await runScript('bench/knowledge-gb-build.ts', [
    'build',
    '--bot',
    manifest.growing,
    '--files-done',
    String(manifest.filesDone),
    '--text-done',
    String(manifest.textDone),
    '--until',
    String(size),
    '--stage-bot',
    bot,
    ...(DIRECT ? ['--segment-mb', String(SEGMENT_MB)] : []),
  ]);
  console.error(`\nbuilt: ${JSON.stringify(built)}`);
  Object.assign(manifest, { filesDone: built.filesDone, textDone: built.textDone });
  manifest.bots[label] = bot;
  manifest.stages[label] = built;
  save();
  await runScript('bench/knowledge-gb-build.ts', [
    'prune',
    '--bot',
    manifest.growing,
    '--keep',
    [manifest.growing, ...Object.values(manifest.bots)].join(','),
  ]);
  return bot;
}

/** The largest size's segments merged into one, in a process of its own. */
async function mergedStage(): Promise<string> {
  const label = `${SIZES.at(-1)}, one segment`;
  if (manifest.bots[label]) return manifest.bots[label];
  const merged = await newBot(manifest.projectId, label);
  for (const ref of (await index.state(manifest.bots[String(SIZES.at(-1))]!))!.segments)
    await index.addSegment(merged, ref);
  const result = await runScript('bench/knowledge-gb-build.ts', ['merge', '--bot', merged]);
  console.error(`merged: ${JSON.stringify(result)}`);
  manifest.bots[label] = merged;
  manifest.merge = result;
  save();
  return merged;
}

const proxy = await countingProxy(svc.emulators.awsEndpoint);

// The anchor, measured in the same run: a bot of one small file, so the gateway, authentication, rate limit and bot
// read (DynamoDB on this loaded machine) are seen apart from what the index costs.
async function anchorBot(): Promise<string> {
  const anchor = await newBot(manifest.projectId, 'anchor');
  await addAnchorSegment(svc.emulators, index, anchor);
  return anchor;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const round = (x: number, d = 1) => Number(x.toFixed(d));
const rows: Record<string, unknown>[] = [];
const warmQueries = corpusQueries(QUERIES, 11);
const newQueries = corpusQueries(QUERIES, 12);
const coldQueries = corpusQueries(COLD, 23);

async function measure(label: string, botId: string) {
  const refs = (await index.state(botId))!.segments;
  // Warm: one process, every query after the first 100.
  const p = await startSearchProcess({ s3Endpoint: proxy.url, memoryMb: FUNCTION_MEMORY_MB });
  const idle = p.rss();
  let maxRss = idle.rssMB;
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, p.rss().rssMB);
  }, 100);
  // One pass over the queries fills the caches (unmeasured); the same queries again are the warm measure; then
  // queries never asked before, with the caches as that traffic left them.
  const pass = async (queries: string[]) => {
    proxy.reset();
    const cpuAt = p.cpuMs();
    const times: number[] = [];
    let answered = 0;
    for (const q of queries) {
      const r = await searchOnce(p.port, manifest.token, botId, q);
      times.push(r.ms);
      if (r.results) answered++;
    }
    return {
      times: times.sort((a, b) => a - b),
      answered,
      cpuMs: (p.cpuMs() - cpuAt) / queries.length,
      reads: { ...proxy.counts },
    };
  };
  await pass(warmQueries);
  const warm = await pass(warmQueries);
  const unseen = await pass(newQueries);
  clearInterval(sampler);
  const times = warm.times;
  const answered = warm.answered;
  const warmCpuMs = warm.cpuMs;
  const warmReads = warm.reads;
  const end = p.rss();
  await stopSearchProcess(p);
  times.sort((a, b) => a - b);
  // Cold: a fresh process (empty memory and disk caches) per query; `--cold 0` measures warm search alone.
  const cold: { ms: number; gets: number; bytes: number }[] = [];
  for (const q of coldQueries) {
    const c = await startSearchProcess({ s3Endpoint: proxy.url, memoryMb: FUNCTION_MEMORY_MB });
    proxy.reset();
    const r = await searchOnce(c.port, manifest.token, botId, q);
    cold.push({ ms: r.ms, ...proxy.counts });
    await stopSearchProcess(c);
  }
  const coldMs = cold.map((c) => c.ms).sort((a, b) => a - b);
  const row = {
    bot: label,
    segments: refs.length,
    excerpts: refs.reduce((n, r) => n + r.excerpts, 0),
    indexMB: Math.round(refs.reduce((n, r) => n + r.bytes, 0) / 1e6),
    warmP50Ms: round(pct(times, 0.5)),
    warmP99Ms: round(pct(times, 0.99)),
    warmAnswered: `${answered}/${times.length}`,
    warmCpuMsPerQuery: round(warmCpuMs),
    warmBucketReadsPerQuery: round(warmReads.gets / times.length),
    warmBucketKBPerQuery: round(warmReads.bytes / 1024 / times.length),
    unseenP50Ms: round(pct(unseen.times, 0.5)),
    unseenP99Ms: round(pct(unseen.times, 0.99)),
    unseenCpuMsPerQuery: round(unseen.cpuMs),
    unseenBucketReadsPerQuery: round(unseen.reads.gets / QUERIES),
    unseenBucketKBPerQuery: round(unseen.reads.bytes / 1024 / QUERIES),
    idleRssMB: idle.rssMB,
    maxRssMB: Math.max(maxRss, end.rssMB),
    peakRssMB: end.hwmMB,
    ...(cold.length
      ? {
          coldP50Ms: round(pct(coldMs, 0.5)),
          coldP99Ms: round(pct(coldMs, 0.99)),
          coldReadsMedian: median(cold.map((c) => c.gets)),
          coldKBMedian: Math.round(median(cold.map((c) => c.bytes)) / 1024),
          coldKBMax: Math.round(Math.max(...cold.map((c) => c.bytes)) / 1024),
        }
      : {}),
  };
  console.error(JSON.stringify(row));
  rows.push(row);
  writeFileSync(join(DATA, 'rows.json'), `${JSON.stringify(rows, null, 2)}\n`);
}

/**
 * The bot's segments of an older format rewritten in the current one (once: later runs find none), with the other
 * sizes' bots that list the same segments.
 */
async function rewritten(botId: string): Promise<string> {
  if (!args.includes('--rewrite')) return botId;
  if ((await index.state(botId))!.segments.every((r) => (r.format ?? 3) >= SEGMENT_FORMAT)) return botId;
  console.error(`rewriting ${botId}'s segments in format ${SEGMENT_FORMAT}`);
  const others = Object.values(manifest.bots).filter((b) => b !== botId);
  const also = others.length ? ['--also', others.join(',')] : [];
  console.error(
    `rewritten: ${JSON.stringify(await runScript('bench/knowledge-gb-build.ts', ['rewrite', '--bot', botId, ...also]))}`,
  );
  return botId;
}

if (args.includes('--build-only')) {
  // Builds every size (not the merge, whose peak memory is a measure) and measures nothing: a long build can run
  // apart from the measurement, at low priority, while the machine is shared.
  for (const size of SIZES) await stage(size);
  // With --rewrite, the largest size's segments (and the others' with them) are rewritten ahead of a measurement;
  // with --merge, the largest size is merged into one segment too (its time and peak memory are printed).
  await rewritten(manifest.bots[String(SIZES.at(-1))]!);
  if (args.includes('--merge')) await mergedStage();
} else {
  await measure('anchor: one file', await anchorBot());
  for (const size of SIZES) await measure(String(size), await rewritten(await stage(size)));
  if (!args.includes('--no-merge')) await measure(`${SIZES.at(-1)}, one segment`, await mergedStage());
}

await proxy.stop();
await stopService();
console.log(
  JSON.stringify(
    {
      machine: machine(),
      loadAverage: loadavg().map((l) => round(l)),
      functionMemoryMB: FUNCTION_MEMORY_MB,
      queries: QUERIES,
      coldQueries: COLD,
      stages: manifest.stages,
      merge: manifest.merge,
      rows,
    },
    null,
    2,
  ),
);
