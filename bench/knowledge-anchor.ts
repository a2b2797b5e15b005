/**
 * Where a warm search of a one-file bot spends its time over HTTP: the search function alone in a process of its own
 * (bench/lib/search-server.ts, as bench/knowledge-gb.ts runs it), `--queries` sequential searches after a warm-up
 * pass; the DynamoDB operations and bucket reads each warm search makes, as the stand-ins receive them; p50 / p99 and
 * the search process's CPU per query (user and system). With `--profile DIR`, the search process writes a CPU
 * profile there; with `--phases`, the median wall time and CPU of each request from its arrival to each outgoing
 * call and to its answer (bench/lib/request-phases.mjs).
 * Usage: npx tsx bench/knowledge-anchor.ts [--queries 300] [--profile DIR] [--phases]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startService } from '#local/service.ts';
import { DynamoKnowledgeIndexStore } from '#shared/knowledge/index.ts';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { addAnchorSegment } from './lib/anchor-segment.ts';
import { countingProxy } from './lib/counting-proxy.ts';
import { adminApi, machine, numberArg } from './lib/harness.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const QUERIES = numberArg('queries', 300);
const PROFILE = option('profile');
const PHASES = args.includes('--phases');
const phasesFile = join(tmpdir(), `knowledge-anchor-phases-${process.pid}.jsonl`);
const repo = resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'knowledge-anchor-'));

process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
const svc = await startService({
  port: 0,
  dataDir,
  logWorkerErrors: false,
  queueWorkerFns: [],
  env: { BOT_RATE_LIMIT_PER_MINUTE: '100000' },
});
const admin = adminApi(svc);
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const ddb = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: svc.emulators.region, endpoint: svc.emulators.dynamoEndpoint, credentials }),
);
const index = new DynamoKnowledgeIndexStore({ client: ddb, tableName: svc.emulators.tableName });
const project = await admin('POST', '/projects', { companyId: 4242, name: 'anchor', monthlyBotCredits: 0 });
const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
const botId = (await admin('POST', `/projects/${project.projectId}/bots`, { name: 'anchor', instructions: 'x' }))
  .botId as string;
await addAnchorSegment(svc.emulators, index, botId);
const proxy = await countingProxy(svc.emulators.awsEndpoint);

const child: ChildProcess = spawn(
  process.execPath,
  [
    '--import',
    './local/typescript-hooks.mjs',
    '--disable-warning=ExperimentalWarning',
    '--experimental-async-context-frame',
    ...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []),
    ...(PHASES ? ['--import', './bench/lib/request-phases.mjs'] : []),
    'bench/lib/search-server.ts',
  ],
  {
    cwd: repo,
    env: {
      ...process.env,
      S3_ENDPOINT: proxy.url,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1769',
      ...(PHASES ? { REQUEST_PHASES_OUT: phasesFile, REQUEST_PHASES_LAST: String(QUERIES) } : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const port = await new Promise<number>((done) => {
  let out = '';
  child.stdout!.on('data', (c) => {
    out += c;
    if (out.includes('\n')) done(JSON.parse(out.split('\n')[0]!).port);
  });
});
/** User and system CPU milliseconds the search process has used (10 ms ticks). */
const cpuMs = () => {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
};
async function search(query: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/ai/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ botId, query, topK: 5 }),
  });
  await res.json();
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return performance.now() - t;
}
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
const exited = new Promise((r) => child.once('exit', r));
child.stdin!.end();
await exited;
await proxy.stop();
ddb.destroy();
await svc.stop();
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
