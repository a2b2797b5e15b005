/**
 * Knowledge ingestion benchmark (bench/history/2026-11-knowledge-search-and-ingestion.md): ~5 MB of text in 10 files (Markdown, plain text, HTML) uploaded to one
 * bot and ingested by the real use case: read from S3, extract, chunk, analyse, write and list the batch's segment,
 * mark ready. Once against the local stand-ins (fauxqs S3 + dynalite), once with in-memory stores (CPU only).
 * Target: >= 2 MB of text per second per worker. Anchor in the same run: MiniSearch indexing the same excerpts.
 * Usage: npx tsx bench/ingest.ts [--rounds 3]
 *
 * With `--files N` it measures how ingestion scales with the bot instead: N one-article files (the help
 * center of bench/knowledge-uploads.ts) ingested in batches of 20 by the real use case over in-memory stores, so the
 * time is the worker's own work (extraction, analysis, the batch's segment, merges), not the upload pace or I/O.
 * Reports the rate of the first and the last 1,000 files (target: last ≥ 80 % of first), the slowest batch, the
 * merges and the segments left.
 * Usage: npx tsx bench/ingest.ts --files 10000
 */
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import MiniSearch from 'minisearch';
import { startEmulators } from '#local/emulators.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import {
  chunkText,
  DynamoKnowledgeFileStore,
  DynamoKnowledgeIndexStore,
  type IngestJob,
  type KnowledgeFileStore,
  type KnowledgeIndexStore,
  type KnowledgeObjectStore,
  makeIngestKnowledge,
  makeKnowledgeManagement,
  SegmentCache,
} from '#shared/knowledge/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { MemoryKnowledge, MemoryObjects } from '#test/support/fakes/knowledge.ts';
import { machine, median, numberArg } from './lib/harness.ts';
import { makeDocument, makeVocabulary, seededRandom } from './search-corpus.ts';

const ROUNDS = numberArg('rounds', 3);
const SCALE_FILES = numberArg('files', 0);
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const logger = createLogger('bench');

const random = seededRandom(7);
const vocabulary = makeVocabulary(40_000, random);
const files = Array.from({ length: 10 }, (_, f) => {
  const text = makeDocument(500_000, f % 2 ? 'en' : 'pt', vocabulary, random);
  if (f % 3 === 1)
    return {
      name: `doc-${f}.html`,
      type: 'text/html',
      body: `<html><head><script>var x=1;</script></head><body>${text
        .split('\n\n')
        .map((p) => `<p>${p}</p>`)
        .join('\n')}</body></html>`,
      chars: text.length,
    };
  if (f % 3 === 2)
    return {
      name: `doc-${f}.md`,
      type: 'text/markdown',
      body: text
        .split('\n\n')
        .map((p, j) => (j % 5 === 0 ? `## Section ${j}\n\n${p}` : p))
        .join('\n\n'),
      chars: text.length,
    };
  return { name: `doc-${f}.txt`, type: 'text/plain', body: text, chars: text.length };
});
const textBytes = files.reduce((n, f) => n + Buffer.byteLength(f.body), 0);

async function ingestOnce(
  store: KnowledgeFileStore,
  index: KnowledgeIndexStore,
  objects: KnowledgeObjectStore,
  botId: string,
  projectId: string,
): Promise<number> {
  const jobs: IngestJob[] = [];
  const manage = makeKnowledgeManagement({
    requireBot: async () => ({}) as never,
    files: store,
    index,
    objects,
    queue: { enqueue: async (j) => void jobs.push(j) },
    logger,
  });
  for (const f of files) await manage.upload(projectId, botId, f.name, f.type, Buffer.from(f.body));
  // A fresh worker: nothing cached.
  const ingest = makeIngestKnowledge({ files: store, index, objects, segments: new SegmentCache(objects), logger });
  const t = performance.now();
  await ingest(botId, jobs, { finalAttempt: false });
  const ms = performance.now() - t;
  const ready = (await store.page(botId, { limit: 1000 })).items.filter((x) => x.status === 'ready').length;
  if (ready !== files.length) throw new Error(`only ${ready} files ready`);
  return ms;
}

if (SCALE_FILES > 0) {
  await scale(SCALE_FILES);
  process.exit(0);
}

/** `--files N`: see the header. */
async function scale(count: number): Promise<void> {
  const store = new MemoryKnowledge();
  store.addBot('bot_scale', 'prj_bench');
  const objects = new MemoryObjects();
  const jobs: IngestJob[] = [];
  const manage = makeKnowledgeManagement({
    requireBot: async () => ({}) as never,
    files: store,
    index: store,
    objects,
    queue: { enqueue: async (j) => void jobs.push(j) },
    logger,
  });
  let merges = 0;
  const countingLogger = { ...logger, info: (message: string) => void (message.includes('merged') && merges++) };
  const ingest = makeIngestKnowledge({
    files: store,
    index: store,
    objects,
    segments: new SegmentCache(objects),
    logger: countingLogger as typeof logger,
  });
  const help = seededRandom(31);
  const words = makeVocabulary(20_000, help);
  const batchMs: number[] = [];
  for (let i = 0; i < count; i += 20) {
    for (let j = i; j < Math.min(count, i + 20); j++)
      await manage.upload(
        'prj_bench',
        'bot_scale',
        `article-${String(j).padStart(5, '0')}.md`,
        'text/markdown',
        Buffer.from(
          `# Article ${j}: how to fix issue kb${j}zx\n\n${makeDocument(1_800, j % 3 ? 'en' : 'pt', words, help)}`,
        ),
      );
    const t = performance.now();
    await ingest('bot_scale', jobs.splice(0), { finalAttempt: false });
    batchMs.push(performance.now() - t);
  }
  const per = 1000 / 20;
  const rate = (ms: number[]) => 1000 / (ms.reduce((a, b) => a + b, 0) / 1000);
  const first = rate(batchMs.slice(0, per));
  const last = rate(batchMs.slice(-per));
  const ready = store.list('bot_scale').filter((f) => f.status === 'ready').length;
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
        files: count,
        ready,
        batchesOf20: batchMs.length,
        filesPerSecondFirst1000: Number(first.toFixed(1)),
        filesPerSecondLast1000: Number(last.toFixed(1)),
        lastOverFirst: Number((last / first).toFixed(2)),
        batchMsMedian: Number(median(batchMs).toFixed(1)),
        slowestBatchMs: Number(Math.max(...batchMs).toFixed(1)),
        merges,
        segmentsLeft: store.bot('bot_scale')!.knowledge.segments.length,
        totalSeconds: Number((batchMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)),
      },
      null,
      2,
    ),
  );
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
const emulators = await startEmulators(dataDir);
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const s3 = new S3Client({
  region: emulators.region,
  endpoint: emulators.awsEndpoint,
  forcePathStyle: true,
  credentials,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const ddb = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: emulators.region, endpoint: emulators.dynamoEndpoint, credentials }),
  { marshallOptions: { removeUndefinedValues: true } },
);
const table = { client: ddb, tableName: emulators.tableName };
const bots = new DynamoBotStore(table);

const rounds: { localStackMs: number; memoryMs: number; miniSearchMs: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const botId = `bot_bench${r}`;
  await bots.create({
    botId,
    projectId: 'prj_bench',
    name: 'b',
    instructions: 'x',
    createdAt: '',
    updatedAt: '',
    knowledge: { version: 0, segments: [] },
  });
  const localStackMs = await ingestOnce(
    new DynamoKnowledgeFileStore(table),
    new DynamoKnowledgeIndexStore(table),
    new S3ObjectStore(s3, emulators.bucketNames.knowledge),
    botId,
    'prj_bench',
  );
  const memory = new MemoryKnowledge();
  memory.addBot('bot_mem', 'prj_bench');
  const memoryMs = await ingestOnce(memory, memory, new MemoryObjects(), 'bot_mem', 'prj_bench');
  const excerpts = files.flatMap((f) => chunkText(f.body));
  const t = performance.now();
  const mini = new MiniSearch({ fields: ['text'] });
  mini.addAll(excerpts.map((text, id) => ({ id, text })));
  JSON.stringify(mini);
  rounds.push({ localStackMs, memoryMs, miniSearchMs: performance.now() - t });
}
s3.destroy();
ddb.destroy();
await emulators.stop();
rmSync(dataDir, { recursive: true, force: true });

const mb = textBytes / 1e6;
const med = (k: keyof (typeof rounds)[number]) => median(rounds.map((r) => r[k]));
console.log(
  JSON.stringify(
    {
      machine: machine(),
      files: files.length,
      textMB: Number(mb.toFixed(2)),
      rounds: ROUNDS,
      localStandInsMs: Math.round(med('localStackMs')),
      localStandInsMBps: Number((mb / (med('localStackMs') / 1000)).toFixed(2)),
      inMemoryMs: Math.round(med('memoryMs')),
      inMemoryMBps: Number((mb / (med('memoryMs') / 1000)).toFixed(2)),
      anchorMiniSearchIndexAndSerializeMs: Math.round(med('miniSearchMs')),
      perRound: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]))),
    },
    null,
    2,
  ),
);
