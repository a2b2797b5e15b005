/**
 * A warm search of bench/knowledge-gb.ts's bots in this process, without HTTP, DynamoDB or the gateway: the search's
 * own work (the view, the postings, ranking, the texts of the top K) with the search function's cache bounds. Runs
 * `--queries` queries once to fill the caches, then `--passes` times again: the median and p99 time of a warm query
 * and the pieces it read. With `--profile FILE`, the warm passes' CPU profile of this thread goes to FILE
 * (`.cpuprofile`) and its heaviest functions are printed.
 * Usage: npx tsx bench/knowledge-gb-profile.ts --data DIR [--bot 1000] [--queries 200] [--passes 3] [--profile F]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { startService } from '#local/service.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import type { Bot } from '#shared/bots/index.ts';
import { DynamoKnowledgeIndexStore, makeKnowledgeSearch, SegmentCache } from '#shared/knowledge/index.ts';
import { type CpuProfile, selfTimes } from './lib/cpu-profile.ts';
import { argValue, machine, numberArg } from './lib/harness.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const DATA = resolve(argValue('data') ?? '.bench-data/knowledge-gb-direct');
const LABEL = argValue('bot') ?? '1000';
const QUERIES = numberArg('queries', 200);
const PASSES = numberArg('passes', 3);
const PROFILE = argValue('profile');
const manifest = JSON.parse(readFileSync(`${DATA}/manifest.json`, 'utf8')) as { bots: Record<string, string> };
const botId = manifest.bots[LABEL]!;

process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
const svc = await startService({ port: 0, dataDir: DATA, logWorkerErrors: false, queueWorkerFns: [] });
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const ddb = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: svc.emulators.region, endpoint: svc.emulators.dynamoEndpoint, credentials }),
);
const s3 = new S3Client({
  region: svc.emulators.region,
  endpoint: svc.emulators.awsEndpoint,
  forcePathStyle: true,
  credentials,
});
const segments = (await new DynamoKnowledgeIndexStore({ client: ddb, tableName: svc.emulators.tableName }).state(
  botId,
))!.segments;
// The search function's bounds (knowledgeCacheFromConfig at 1,769 MB).
const cache = new SegmentCache(new S3ObjectStore(s3, svc.emulators.bucketNames.knowledge), {
  memoryBytes: 100 * 1024 * 1024,
  diskBytes: 384 * 1024 * 1024,
});
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;
const search = makeKnowledgeSearch({ bots: { get: async () => undefined }, segments: cache, logger: silent });
const bot = { botId, knowledge: { segments } } as unknown as Bot;
const queries = corpusQueries(QUERIES, 11);
const ask = (query: string) => search.search({ botId, bot, query, topK: 5 });

for (const q of queries) await ask(q);
const session = new Session();
if (PROFILE) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const times: number[] = [];
const cpuAt = process.cpuUsage();
for (let p = 0; p < PASSES; p++)
  for (const q of queries) {
    const t = performance.now();
    await ask(q);
    times.push(performance.now() - t);
  }
const cpu = process.cpuUsage(cpuAt);

let heaviest: [string, number][] | undefined;
if (PROFILE) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(PROFILE, JSON.stringify(profile));
  const { fns } = selfTimes(profile as unknown as CpuProfile);
  const total = [...fns.values()].reduce((a, b) => a + b, 0);
  heaviest = [...fns]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([fn, us]) => [fn, Number(((100 * us) / total).toFixed(1))]);
  session.disconnect();
}
times.sort((a, b) => a - b);
const pct = (p: number) => Number(times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(2));
s3.destroy();
ddb.destroy();
await svc.stop();
console.log(
  JSON.stringify(
    {
      machine: machine(),
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
      bot: LABEL,
      segments: segments.length,
      warmQueries: times.length,
      warmP50Ms: pct(0.5),
      warmP99Ms: pct(0.99),
      // The whole process (the stand-ins' threads too, idle while warm queries read nothing from the bucket).
      cpuMsPerQuery: Number(((cpu.user + cpu.system) / 1000 / times.length).toFixed(2)),
      ...(heaviest ? { heaviestSelfPercent: heaviest } : {}),
    },
    null,
    1,
  ),
);
