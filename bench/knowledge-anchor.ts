/**
 * Where a warm search of a one-file bot spends its time over HTTP: the search function alone in a process of its own
 * (bench/lib/search-server.ts, as bench/knowledge-gb.ts runs it), `--queries` sequential searches after a warm-up
 * pass; the DynamoDB operations and bucket reads each warm search makes, as the stand-ins receive them; p50 / p99 and
 * the search process's CPU per query (user and system). With `--profile DIR`, the search process writes a CPU
 * profile there; with `--phases`, the median wall time and CPU of each request from its arrival to each outgoing
 * call and to its answer (bench/lib/request-phases.mjs).
 * Usage: npx tsx bench/knowledge-anchor.ts [--queries 300] [--profile DIR] [--phases]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { addAnchorSegment } from './lib/anchor-segment.ts';
import { countingProxy } from './lib/counting-proxy.ts';
import { startIndexService } from './lib/index-service.ts';
import { machine, numberArg } from './lib/harness.ts';
import { searchOnce, startSearchProcess, stopSearchProcess } from './lib/search-process.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const QUERIES = numberArg('queries', 300);
const PROFILE = option('profile');
const PHASES = args.includes('--phases');
const phasesFile = join(tmpdir(), `knowledge-anchor-phases-${process.pid}.jsonl`);
const dataDir = mkdtempSync(join(tmpdir(), 'knowledge-anchor-'));

const { svc, admin, index, stop: stopService } = await startIndexService(dataDir);
const project = await admin('POST', '/projects', { companyId: 4242, name: 'anchor', monthlyBotCredits: 0 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const botId = (await admin('POST', `/projects/${project.projectId}/bots`, { name: 'anchor', instructions: 'x' }))
  .botId as string;
await addAnchorSegment(svc.emulators, index, botId);
const proxy = await countingProxy(svc.emulators.awsEndpoint);

const searcher = await startSearchProcess({
  s3Endpoint: proxy.url,
  memoryMb: 1769,
  nodeArgs: [
    ...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []),
    ...(PHASES ? ['--import', './bench/lib/request-phases.mjs'] : []),
  ],
  ...(PHASES ? { env: { REQUEST_PHASES_OUT: phasesFile, REQUEST_PHASES_LAST: String(QUERIES) } } : {}),
});
const cpuMs = searcher.cpu;
const search = async (query: string) => (await searchOnce(searcher.port, token, botId, query)).ms;
const queries = corpusQueries(QUERIES, 11);
for (const q of queries) await search(q);
// One warm search's calls on the wire.
const dynamo = recordDynamoCalls(svc);
proxy.reset();
await search(queries[0]!);
const oneSearch = { dynamo: await dynamo.requestCalls(1), bucketGets: proxy.counts.gets };
dynamo.stop();
const cpuAt = cpuMs();
const times: number[] = [];
for (const q of queries) times.push(await search(q));
const cpuEnd = cpuMs();
const cpu = { user: (cpuEnd.user - cpuAt.user) / QUERIES, system: (cpuEnd.system - cpuAt.system) / QUERIES };
times.sort((a, b) => a - b);
const pct = (p: number) => Number(times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(1));
await stopSearchProcess(searcher);
await proxy.stop();
await stopService();
rmSync(dataDir, { recursive: true, force: true });
const phases = PHASES
  ? readFileSync(phasesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
  : undefined;
if (PHASES) rmSync(phasesFile, { force: true });
console.log(
  JSON.stringify({
    machine: machine(),
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    queries: QUERIES,
    oneWarmSearch: oneSearch,
    warmP50Ms: pct(0.5),
    warmP99Ms: pct(0.99),
    ...(phases ? { phases } : {}),
    cpuMsPerQuery: { user: Number(cpu.user.toFixed(1)), system: Number(cpu.system.toFixed(1)) },
  }),
);
