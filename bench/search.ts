/**
 * Knowledge search benchmark (bench/history/2026-11-knowledge-at-scale.md): a bot with 5,000 excerpts of ~1,000 characters (~5 MB of text), its
 * index in `--segments` segments (default 8: what incremental ingestion and its merges leave, at most a few dozen).
 * - cached search: p50 / p99 of the KnowledgeSearch use case with the index in memory (target < 15 ms / < 50 ms);
 * - cold load: the index opened from S3 (the local stand-in: each segment's tail read by range), as the first search
 *   after a cold start does (target < 300 ms), with a fresh S3 client and a fresh cache each round;
 * - anchor, measured in the same run: MiniSearch's own JSON index of the same excerpts (size, loadJSON time).
 * Usage: npx tsx bench/search.ts [--rounds 5] [--queries 2000]
 */
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import MiniSearch from 'minisearch';
import { startEmulators } from '#local/emulators.ts';
import { buildSegment, makeKnowledgeSearch, SegmentCache, type SegmentDocumentInput } from '#shared/knowledge/index.ts';
import type { Bot } from '#shared/bots/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { countingObjects } from './lib/counting-objects.ts';
import { machine, median, numberArg } from './lib/harness.ts';
import { makePassage, makeVocabulary, seededRandom } from './search-corpus.ts';

const ROUNDS = numberArg('rounds', 5);
const QUERIES = numberArg('queries', 2000);
const EXCERPTS = 5000;
const SEGMENTS = numberArg('segments', 8);
const FILES = 50;

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const random = seededRandom(42);
const vocabulary = makeVocabulary(40_000, random);
const documents: SegmentDocumentInput[] = Array.from({ length: FILES }, (_, f) => ({
  fileKey: `k${f}`,
  fileName: `manual-${String(f).padStart(2, '0')}.${f % 3 === 0 ? 'pdf' : 'md'}`,
  generation: `gen${f}`,
  language: f % 2 ? 'en' : 'pt',
  excerpts: Array.from({ length: EXCERPTS / FILES }, () => makePassage(1000, f % 2 ? 'en' : 'pt', vocabulary, random)),
}));
const textBytes = documents.reduce((n, d) => n + d.excerpts.reduce((m, e) => m + Buffer.byteLength(e), 0), 0);

let t = performance.now();
const per = Math.ceil(FILES / SEGMENTS);
const segments = Array.from({ length: Math.ceil(FILES / per) }, (_, i) =>
  buildSegment(documents.slice(i * per, (i + 1) * per)),
);
const buildMs = performance.now() - t;
const indexBytes = { length: segments.reduce((n, b) => n + b.length, 0) };
const refs = segments.map((b, i) => ({
  id: `seg${String(i).padStart(4, '0')}`,
  key: `bots/bot_bench/segments/seg${i}.sbks`,
  docs: per,
  excerpts: per * (EXCERPTS / FILES),
  markers: 0,
  bytes: b.length,
}));

const bot: Bot = {
  botId: 'bot_bench',
  projectId: 'prj_bench',
  name: 'bench',
  instructions: '',
  createdAt: '',
  updatedAt: '',
  knowledge: { version: refs.length, segments: refs },
};

const dataDir = mkdtempSync(join(tmpdir(), 'bench-search-'));
const emulators = await startEmulators(dataDir);
const bucket = emulators.bucketNames.knowledge;
const newS3 = () =>
  new S3Client({
    region: emulators.region,
    endpoint: emulators.awsEndpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
const setupS3 = newS3();
for (const [i, ref] of refs.entries())
  await new S3ObjectStore(setupS3, bucket).put(ref.key, segments[i]!, 'application/octet-stream');
// Warm the SDK's code paths once (on Lambda this is part of module init, not of the first search).
await new S3ObjectStore(setupS3, bucket).get(refs[0]!.key);

const logger = createLogger('bench');
const queries = Array.from({ length: QUERIES }, (_, i) => {
  const words = Array.from(
    { length: 1 + Math.floor(random() * 7) },
    () => vocabulary[Math.floor(random() ** 2 * 20_000)]!,
  );
  return {
    query: words.join(' '),
    filters: i % 10 === 0 ? { include: ['%.md'], exclude: ['manual-1%'] } : undefined,
    topK: 1 + (i % 8),
  };
});

const rounds: {
  coldBytes: number;
  warmCacheMB: number;
  coldLoadMs: number;
  firstSearchMs: number;
  p50: number;
  p99: number;
  miniLoadMs: number;
}[] = [];
// MiniSearch anchor: the library's own serialised index of the same excerpts.
const mini = new MiniSearch({ fields: ['text'], storeFields: ['file'] });
mini.addAll(documents.flatMap((d, f) => d.excerpts.map((text, i) => ({ id: f * 1000 + i, text, file: d.fileName }))));
const miniJson = JSON.stringify(mini);

for (let r = 0; r < ROUNDS; r++) {
  const s3 = newS3();
  const counted = countingObjects(new S3ObjectStore(s3, bucket));
  const cache = new SegmentCache(counted);
  const search = makeKnowledgeSearch({ bots: { get: async () => bot }, segments: cache, logger });
  t = performance.now();
  await cache.view(bot.botId, bot.knowledge.segments);
  const coldLoadMs = performance.now() - t;
  const coldBytes = counted.reads.bytes;
  const cold = makeKnowledgeSearch({
    bots: { get: async () => bot },
    segments: new SegmentCache(new S3ObjectStore(s3, bucket)),
    logger,
  });
  t = performance.now();
  await cold.search({ botId: bot.botId, bot, query: queries[0]!.query, topK: 5 });
  const firstSearchMs = performance.now() - t;

  for (const q of queries.slice(0, 200)) await search.search({ botId: bot.botId, bot, ...q }); // warm-up
  const latencies: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await search.search({ botId: bot.botId, bot, ...q });
    latencies.push(performance.now() - s);
  }
  latencies.sort((a, b) => a - b);
  t = performance.now();
  MiniSearch.loadJSON(miniJson, { fields: ['text'], storeFields: ['file'] });
  const miniLoadMs = performance.now() - t;
  rounds.push({
    coldBytes,
    warmCacheMB: cache.pieces.memoryBytes / 1e6,
    coldLoadMs,
    firstSearchMs,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
    miniLoadMs,
  });
  s3.destroy();
}
setupS3.destroy();
await emulators.stop();
rmSync(dataDir, { recursive: true, force: true });

const med = (k: keyof (typeof rounds)[number]) => Number(median(rounds.map((r) => r[k])).toFixed(2));
const result = {
  machine: machine(),
  excerpts: EXCERPTS,
  segments: refs.length,
  textMB: Number((textBytes / 1e6).toFixed(2)),
  indexGzipMB: Number((indexBytes.length / 1e6).toFixed(2)),
  // What opening the view read (tails; lengths when not in the first read), and the pieces held after the queries.
  coldOpenReadMB: Number((med('coldBytes') / 1e6).toFixed(2)),
  piecesInMemoryAfterQueriesMB: Number(med('warmCacheMB').toFixed(2)),
  buildMs: Math.round(buildMs),
  rounds: ROUNDS,
  queriesPerRound: QUERIES,
  cachedSearchP50Ms: med('p50'),
  cachedSearchP99Ms: med('p99'),
  coldIndexLoadMs: med('coldLoadMs'),
  firstSearchAfterColdStartMs: med('firstSearchMs'),
  anchorMiniSearchJsonMB: Number((Buffer.byteLength(miniJson) / 1e6).toFixed(2)),
  anchorMiniSearchLoadJsonMs: med('miniLoadMs'),
  perRound: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v.toFixed(2))]))),
};
console.log(JSON.stringify(result, null, 2));
