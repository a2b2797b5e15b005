/**
 * Browser uploads of knowledge files and OCR in ingestion (bench/history/2026-11-knowledge-uploads-and-ocr.md), against the whole local service:
 * - a 20 MB, 200-page text PDF: upload URL issued → form posted to the S3 stand-in → `ready` (target < 30 s);
 * - a 10-page scan read with tesseract.js: issued → `ready`, per page (target < 10 s per page);
 * - search latency over HTTP on the bot holding both indexes: per-response times of sequential
 *   `POST /api/v1/ai/search` (target p50 < 15 ms).
 * Usage: npx tsx bench/knowledge-uploads.ts [--rounds 1] [--queries 300]
 *
 * With `--files N` it measures a help center loaded into one bot instead: N one-article files (a few
 * hundred words each), uploaded with `PUT` `--concurrency` at a time (default 8), then:
 * - errors: any upload answer other than 202;
 * - ingestion rate: files per second becoming `ready` over the first 1,000 and over the last 1,000 (target: last
 *   ≥ 80 % of first: incremental indexing, no slowdown with the bot's size);
 * - upload → `ready` p50 / p99 (from the start of its PUT to the `updatedAt` the worker wrote when it marked the file
 *   ready: one machine, one clock; target p99 < 10 s throughout);
 * - search over HTTP on that bot: p50 / p99 of sequential `POST /api/v1/ai/search` (target p50 < 15 ms);
 * - cold index load: a fresh segment cache reading every segment of the bot from S3 (the stand-in) and building the
 *   view, as the first search after a cold start does (target < 300 ms); the bot's segment count and index size.
 * Anchors in the same run (the machine is shared): search over HTTP on a bot with one file (the
 * gateway, auth, rate limit and bot read without the index), and the first search's MiniSearch `loadJSON` of 5,000 excerpts
 * (~280 ms on a quiet machine).
 * Usage: npx tsx bench/knowledge-uploads.ts --files 10000 [--concurrency 8] [--queries 300]
 */
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startService } from '#local/service.ts';
import { mixedPdf } from '#test/support/pdf-fixtures.ts';
import { S3Client } from '@aws-sdk/client-s3';
import { SegmentCache } from '#shared/knowledge/index.ts';
import { adminApi, machine, median, numberArg } from './lib/harness.ts';
import MiniSearch from 'minisearch';
import { makeDocument, makePassage, makeVocabulary, seededRandom } from './search-corpus.ts';

const ROUNDS = numberArg('rounds', 1);
const QUERIES = numberArg('queries', 300);
const FILES = numberArg('files', 0);
const CONCURRENCY = numberArg('concurrency', 8);

/** 200 pages of typed text (a manual), padded to `size` bytes with an unreferenced stream of random bytes. */
async function textPdfOfSize(size: number, pages: number): Promise<Uint8Array> {
  const build = async (filler: number) => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 1; p <= pages; p++) {
      const page = doc.addPage([612, 792]);
      for (let l = 0; l < 30; l++)
        page.drawText(
          `Section ${p}.${l + 1}: maintenance step ${p * 100 + l} for pump model K${p % 17} and valve V${l}.`,
          {
            x: 50,
            y: 740 - l * 22,
            size: 11,
            font,
          },
        );
    }
    if (filler > 0) doc.context.register(doc.context.stream(randomBytes(filler)));
    return doc.save({ useObjectStreams: false });
  };
  const probe = await build(0);
  return build(Math.max(0, size - probe.length - 200));
}

const scanPages = Array.from({ length: 10 }, (_, i) => ({
  scan: `Inspection sheet ${i + 1}\nThe conveyor belt tension was checked on line ${i + 1}\nNo defects were found`,
}));

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-uploads-'));
const svc = await startService({
  port: 0,
  dataDir,
  logWorkerErrors: false,
  env: { BOT_RATE_LIMIT_PER_MINUTE: '100000' },
});
const admin = adminApi(svc);

/** A bot's knowledge files, walked 100 a page (the API's bound). */
async function listedFiles(filesPath: string): Promise<{ fileName: string; status: string; updatedAt: string }[]> {
  const files = [];
  let cursor: string | undefined;
  do {
    const page = await admin('GET', `${filesPath}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    files.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return files;
}

/** `QUERIES` sequential `POST /api/v1/ai/search` after 20 unmeasured ones: each one's milliseconds, sorted. */
async function timeSearches(token: string, botId: string, queries: string[], topK: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < QUERIES + 20; i++) {
    const t = performance.now();
    const res = await fetch(`${svc.baseUrl}/api/v1/ai/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ botId, query: queries[i % queries.length], topK }),
    });
    await res.arrayBuffer();
    if (i >= 20) times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}
if (FILES > 0) {
  try {
    await burst();
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}
try {
  const project = await admin('POST', '/projects', { companyId: 99, name: 'bench', monthlyBotCredits: 0 });
  const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
  const bot = await admin('POST', `/projects/${project.projectId}/bots`, { name: 'bench', instructions: 'x' });
  const filesPath = `/projects/${project.projectId}/bots/${bot.botId}/knowledge`;

  async function uploadAndWait(fileName: string, bytes: Uint8Array): Promise<{ ms: number; file: any }> {
    const started = performance.now();
    const form = await admin('POST', `${filesPath}/${fileName}/upload`, { contentType: 'application/pdf' });
    const body = new FormData();
    for (const [k, v] of Object.entries(form.fields as Record<string, string>)) body.append(k, v);
    body.append('file', new Blob([bytes], { type: 'application/pdf' }), fileName);
    const posted = await fetch(form.uploadUrl, { method: 'POST', body });
    if (!posted.ok) throw new Error(`upload refused: ${posted.status}`);
    for (;;) {
      const file = (await admin('GET', filesPath)).items.find((f: any) => f.fileName === fileName);
      if (file?.status !== 'processing') return { ms: performance.now() - started, file };
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const big = await textPdfOfSize(20 * 1024 * 1024, 200);
  const scan = await mixedPdf(scanPages);
  const bigMs: number[] = [];
  const scanMs: number[] = [];
  let scanFile: any;
  let bigFile: any;
  for (let round = 0; round < ROUNDS; round++) {
    const b = await uploadAndWait('manual-200-pages.pdf', big);
    bigMs.push(b.ms);
    bigFile = b.file;
    const s = await uploadAndWait('inspection-scan.pdf', scan);
    scanMs.push(s.ms);
    scanFile = s.file;
  }

  const queries = ['conveyor belt tension', 'pump model K7 valve', 'maintenance step 4512', 'no defects found line 3'];
  const times = await timeSearches(token, bot.botId, queries, 5);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;

  console.log(
    `machine: ${machine()}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`,
  );
  console.log(
    `20 MB / 200-page text PDF (${big.length} B): issued → ready median ${(median(bigMs) / 1000).toFixed(1)} s ` +
      `(${bigMs.map((m) => (m / 1000).toFixed(1)).join(', ')}); ${bigFile.status}, ${bigFile.chunks} chunks`,
  );
  console.log(
    `10-page scan (${scan.length} B, tesseract): issued → ready median ${(median(scanMs) / 1000).toFixed(1)} s, ` +
      `${(median(scanMs) / 10_000).toFixed(2)} s per page; ${scanFile.status}, ocrPages ${scanFile.ocrPages}, ${scanFile.chunks} chunks`,
  );
  console.log(
    `search over HTTP on that bot (${QUERIES} sequential): p50 ${pct(50).toFixed(2)} ms, p95 ${pct(95).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms`,
  );
} finally {
  await svc.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** The help-center burst (`--files N`): see the header. */
async function burst(): Promise<void> {
  const project = await admin('POST', '/projects', { companyId: 77, name: 'help center', monthlyBotCredits: 0 });
  const { token } = await admin('POST', `/projects/${project.projectId}/api-token`);
  const bot = await admin('POST', `/projects/${project.projectId}/bots`, { name: 'help', instructions: 'x' });
  const filesPath = `/projects/${project.projectId}/bots/${bot.botId}/knowledge`;
  const random = seededRandom(31);
  const vocabulary = makeVocabulary(20_000, random);
  const article = (i: number) =>
    `# Article ${i}: how to fix issue kb${i}zx\n\n${makeDocument(1_800, i % 3 ? 'en' : 'pt', vocabulary, random)}`;
  const names = Array.from({ length: FILES }, (_, i) => `article-${String(i).padStart(5, '0')}.md`);
  const texts = names.map((_, i) => article(i));
  /** Epoch ms at the start of each file's PUT, and when the worker marked it ready (its `updatedAt`). */
  const uploadedAt = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const statuses = new Map<number, number>();
  const uploadMs: number[] = [];
  let uploading = true;

  // The listing, walked page by page (100 a page, the API's bound) every 5 s, until every accepted file has settled.
  // When a file became ready is the `updatedAt` the worker wrote, so the interval only delays the end of the run.
  const watcher = (async () => {
    while (uploading || readyAt.size < uploadedAt.size) {
      for (const f of await listedFiles(filesPath))
        if (f.status !== 'processing' && !readyAt.has(f.fileName)) readyAt.set(f.fileName, Date.parse(f.updatedAt));
      await new Promise((r) => setTimeout(r, 5000));
    }
  })();

  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < names.length) {
        const i = next++;
        const t0 = performance.now();
        uploadedAt.set(names[i]!, Date.now());
        const res = await fetch(`${svc.baseUrl}/admin/v1${filesPath}/${names[i]}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'text/markdown' },
          body: texts[i],
        });
        await res.arrayBuffer();
        uploadMs.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 202) uploadedAt.delete(names[i]!);
      }
    }),
  );
  const uploadSeconds = (performance.now() - started) / 1000;
  uploading = false;
  await watcher;
  const allReadySeconds = (performance.now() - started) / 1000;

  const waits = names.filter((n) => readyAt.has(n)).map((n) => readyAt.get(n)! - uploadedAt.get(n)!);
  waits.sort((a, b) => a - b);
  const readyTimes = [...readyAt.values()].sort((a, b) => a - b);
  const window = Math.min(1000, Math.floor(readyTimes.length / 2));
  const rate = (from: number) => window / ((readyTimes[from + window - 1]! - readyTimes[from]!) / 1000 || 1e-9);
  const firstRate = rate(0);
  const lastRate = rate(readyTimes.length - window);
  const failed = (await listedFiles(filesPath)).filter((f) => f.status === 'failed').length;

  // Search over HTTP on the loaded bot.
  const queries = Array.from({ length: 50 }, (_, i) => {
    const words = texts[(i * 197) % texts.length]!.split(/\s+/).filter((w) => w.length > 4);
    return words.slice(5 + (i % 7), 9 + (i % 7)).join(' ');
  });
  const times = await timeSearches(token, bot.botId, queries, 8);
  const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

  const anchorTimes = await oneFileBotTimes(project.projectId, token, texts[0]!, queries);

  const refs = await segmentRefs(bot.botId);
  const loads = await coldIndexLoads(bot.botId, refs);

  const miniLoads = miniSearchLoads();
  const uploadsSorted = [...uploadMs].sort((a, b) => a - b);

  console.log(
    JSON.stringify(
      {
        machine: machine(),
        loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
        files: FILES,
        concurrency: CONCURRENCY,
        statuses: Object.fromEntries(statuses),
        errors: FILES - (statuses.get(202) ?? 0),
        failedFiles: failed,
        uploadSeconds: Number(uploadSeconds.toFixed(1)),
        uploadP50Ms: Number(pct(uploadsSorted, 50).toFixed(1)),
        uploadP99Ms: Number(pct(uploadsSorted, 99).toFixed(1)),
        allReadySeconds: Number(allReadySeconds.toFixed(1)),
        readyFilesPerSecondFirst1000: Number(firstRate.toFixed(1)),
        readyFilesPerSecondLast1000: Number(lastRate.toFixed(1)),
        lastOverFirst: Number((lastRate / firstRate).toFixed(2)),
        uploadToReadyP50s: Number((pct(waits, 50) / 1000).toFixed(2)),
        uploadToReadyP99s: Number((pct(waits, 99) / 1000).toFixed(2)),
        uploadToReadyMaxS: Number((waits.at(-1)! / 1000).toFixed(2)),
        searchHttpP50Ms: Number(pct(times, 50).toFixed(2)),
        searchHttpP99Ms: Number(pct(times, 99).toFixed(2)),
        anchorSearchHttpOneFileBotP50Ms: Number(pct(anchorTimes, 50).toFixed(2)),
        anchorSearchHttpOneFileBotP99Ms: Number(pct(anchorTimes, 99).toFixed(2)),
        segments: refs.length,
        indexMB: Number((refs.reduce((n, r) => n + r.bytes, 0) / 1e6).toFixed(2)),
        coldIndexLoadMsMedian: Number(median(loads).toFixed(1)),
        coldIndexLoadMs: loads.map((l) => Number(l.toFixed(1))),
        anchorMiniSearchLoadJsonMsMedian: Number(median(miniLoads).toFixed(1)),
        coldLoadOverAnchor: Number((median(loads) / median(miniLoads)).toFixed(2)),
      },
      null,
      2,
    ),
  );
}

/** Anchor: the same searches on a bot holding one file (`text`), once that file is ready. */
async function oneFileBotTimes(projectId: string, token: string, text: string, queries: string[]): Promise<number[]> {
  const small = await admin('POST', `/projects/${projectId}/bots`, { name: 'one file', instructions: 'x' });
  await fetch(`${svc.baseUrl}/admin/v1/projects/${projectId}/bots/${small.botId}/knowledge/one.md`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${svc.adminKey}`, 'content-type': 'text/markdown' },
    body: text,
  });
  for (;;) {
    const page = await admin('GET', `/projects/${projectId}/bots/${small.botId}/knowledge`);
    if (page.items[0]?.status === 'ready') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return timeSearches(token, small.botId, queries, 8);
}

/** Cold index load, five times: every segment of the bot read from S3 by a fresh cache, and the view built. */
async function coldIndexLoads(botId: string, refs: Awaited<ReturnType<typeof segmentRefs>>): Promise<number[]> {
  const loads: number[] = [];
  for (let r = 0; r < 5; r++) {
    const s3 = new S3Client({
      region: svc.emulators.region,
      endpoint: svc.emulators.awsEndpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const store = new S3ObjectStore(s3, svc.emulators.bucketNames.knowledge);
    await store.get(refs[0]!.key); // the SDK's code paths warm, as on Lambda after module init
    const t = performance.now();
    await new SegmentCache(store).view(botId, refs);
    loads.push(performance.now() - t);
    s3.destroy();
  }
  return loads;
}

/** Anchor: the first search's MiniSearch loadJSON of 5,000 excerpts (~280 ms quiet), three times. */
function miniSearchLoads(): number[] {
  const anchorRandom = seededRandom(42);
  const anchorVocabulary = makeVocabulary(40_000, anchorRandom);
  const mini = new MiniSearch({ fields: ['text'], storeFields: ['file'] });
  mini.addAll(
    Array.from({ length: 5000 }, (_, id) => ({
      id,
      text: makePassage(1000, id % 2 ? 'en' : 'pt', anchorVocabulary, anchorRandom),
      file: `f${id % 50}`,
    })),
  );
  const miniJson = JSON.stringify(mini);
  const miniLoads: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    MiniSearch.loadJSON(miniJson, { fields: ['text'], storeFields: ['file'] });
    miniLoads.push(performance.now() - t);
  }
  return miniLoads;
}

/** The bot's listed segments, read from the table the way the search function reads the bot. */
async function segmentRefs(botId: string) {
  const { DynamoBotStore } = await import('#shared/bots/index.ts');
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: svc.emulators.region,
      endpoint: svc.emulators.dynamoEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const bot = await new DynamoBotStore({ client, tableName: svc.emulators.tableName }).get(botId);
  client.destroy();
  return bot!.knowledge.segments;
}
