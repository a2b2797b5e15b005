/**
 * The build and merge halves of bench/knowledge-gb.ts, each in a process of its own so its peak memory is its own
 * (it talks to the parent's stand-ins through the environment the local runner set: DYNAMODB_ENDPOINT, S3_ENDPOINT,
 * TABLE_NAME, BUCKET_KNOWLEDGE).
 *
 *   build --bot <id> --files-done n --text-done bytes --until MB --stage-bot <id> [--segment-mb MB]
 *       grows one bot through the ingest path to `--until` MB of text, then lists its segments on `--stage-bot`;
 *       with `--segment-mb`, straight into segments of that much text instead (see below)
 *   prune --bot <id> --keep a,b,c   deletes the grown bot's objects that none of the bots listed still lists
 *   merge --bot <id>                merges every segment of a bot into one (forced)
 *   rewrite --bot <id> [--also a,b] rewrites each segment of an older format in the current one, one at a time, once
 *                                   for all the bots listed
 *
 * What the build runs is the ingest worker's path from text to a listed segment: the chunker, language detection,
 * the analyzer's terms, the batch's segment (buildSegment, 20 files a batch), its PUT to the bucket, its listing on
 * the bot item, then the size-tiered merges (makeCompaction, streaming its output to the bucket and reading it back).
 * Batches are made on two worker threads (bench/lib/knowledge-gb-batches.ts) while the main thread stores and merges.
 * Bypassed, because other benches measure them and they do not change what is stored: the upload API and the queue,
 * the upload's own GET from the bucket, text extraction (the files are plain text), and the file records. The
 * analyzer's terms come from the production `documentTerms`, memoised per distinct word here without its 200,000-word
 * cache limit (which a million-word vocabulary would clear over and over); the first excerpt of every file is checked
 * against `documentTerms` itself.
 * With `--segment-mb`, the batches are not listed one by one and merged in size tiers (every byte merged several
 * times, the slowest part at 1 GB): each run of batches holding that much text is merged once, straight into one
 * segment (the merge's streaming output and read-back check, as a merge writes it), and listed. A 1 GB bot is then ten
 * segments of 100 MB of text, as the tiers leave it at about that size, in a fraction of the time.
 * Prints one JSON line: sizes, rates, peak RSS (VmHWM).
 */
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLogger } from '#shared/kernel/logger.ts';
import {
  DynamoKnowledgeIndexStore,
  knowledgeObjectKeys,
  makeCompaction,
  makeWriteMergedSegment,
  newSegmentId,
  SEGMENT_FORMAT,
  SegmentCache,
  segmentFromBytes,
} from '#shared/knowledge/index.ts';
import type { KnowledgeSegmentRef } from '#shared/bots/index.ts';
import { Worker } from 'node:worker_threads';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const mode = args[0];
const botId = arg('bot')!;
const env = process.env;
const region = env.AWS_REGION ?? 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const s3 = new S3Client({
  region,
  endpoint: env.S3_ENDPOINT,
  forcePathStyle: true,
  credentials,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const bucket = env.BUCKET_KNOWLEDGE!;
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({ region, endpoint: env.DYNAMODB_ENDPOINT, credentials }), {
  marshallOptions: { removeUndefinedValues: true },
});
const index = new DynamoKnowledgeIndexStore({ client: ddb, tableName: env.TABLE_NAME! });
const objects = new S3ObjectStore(s3, bucket);
const logger = createLogger('bench');
// The inputs of one stage's segments stay referenced by the later stages' bots: nothing merged away is deleted.
const segments = new SegmentCache(objects, { memoryBytes: 192 * 1024 * 1024 });
const compact = makeCompaction({
  index,
  objects,
  segments,
  logger,
  options: { retireAfterMs: Number.MAX_SAFE_INTEGER },
});
const writeMerged = makeWriteMergedSegment({ objects, logger }, () => new Date());

function peakRssMb(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Math.round(Number(hwm) / 1024);
}

interface Batch {
  first: number;
  bytes: Uint8Array;
  textBytes: number;
  excerpts: number;
  docs: number;
  at: number;
}

/** Batches made by two worker threads (bench/lib/knowledge-gb-batches.ts), handed out in order. */
function batchMaker() {
  const workers = [0, 1].map(
    () =>
      new Worker(new URL('./lib/knowledge-gb-batches.ts', import.meta.url), {
        execArgv: [...process.execArgv],
      }),
  );
  const pending = new Map<number, { resolve: (b: Batch) => void; reject: (e: Error) => void }>();
  for (const w of workers) {
    w.on('message', (b: Batch) => {
      pending.get(b.first)?.resolve(b);
      pending.delete(b.first);
    });
    w.on('error', (e) => {
      for (const p of pending.values()) p.reject(e);
    });
  }
  let turn = 0;
  return {
    make(first: number, count: number): Promise<Batch> {
      const worker = workers[turn++ % workers.length]!;
      return new Promise((resolve, reject) => {
        pending.set(first, { resolve, reject });
        worker.postMessage({ first, count });
      });
    },
    stop: () => Promise.all(workers.map((w) => w.terminate())),
  };
}

/** Grows the bot from `--files-done` files to `--until` MB of text, then lists its segments on `--stage-bot`. */
async function build(): Promise<void> {
  const untilBytes = Number(arg('until')) * 1e6;
  const stageBot = arg('stage-bot')!;
  let n = Number(arg('files-done') ?? 0);
  let textBytes = Number(arg('text-done') ?? 0);
  const started = performance.now();
  const startBytes = textBytes;
  let excerpts = 0;
  let storeMs = 0;
  let mergeMs = 0;
  let merges = 0;
  const maker = batchMaker();
  // Two batches in the making while one is stored and merged.
  const ahead: Promise<Batch>[] = [];
  const queue = () => {
    ahead.push(maker.make(n, 20));
    n += 20;
  };
  let queuedBytes = 0;
  const segmentBytes = Number(arg('segment-mb') ?? 0) * 1e6;
  // Straight into segments: the batches of the segment being filled, and its text so far.
  let group: Batch[] = [];
  let groupBytes = 0;
  const flushGroup = async () => {
    if (!group.length) return;
    const inputs = await Promise.all(group.map((b) => segmentFromBytes(b.bytes)));
    const ref = await writeMerged(botId, inputs, () => true, []);
    if (!ref) throw new Error('a direct segment failed its read-back check');
    await index.addSegment(botId, ref);
    group = [];
    groupBytes = 0;
    merges++;
  };
  try {
    queue();
    queue();
    for (;;) {
      const batch = await ahead.shift()!;
      textBytes += batch.textBytes;
      queuedBytes = textBytes;
      if (queuedBytes < untilBytes) queue();
      else n -= 20 * ahead.length; // batches made beyond the target are not stored
      const t0 = performance.now();
      if (segmentBytes) {
        group.push(batch);
        groupBytes += batch.textBytes;
        excerpts += batch.excerpts;
        if (groupBytes >= segmentBytes || textBytes >= untilBytes) await flushGroup();
        mergeMs += performance.now() - t0;
        process.stderr.write(
          `\r${(textBytes / 1e6).toFixed(0)} MB, ${batch.first + 20} files, ${merges} segments, ${((performance.now() - started) / 1000).toFixed(0)} s   `,
        );
        if (textBytes >= untilBytes) break;
        continue;
      }
      const at = new Date(batch.at);
      const id = newSegmentId(at);
      const key = knowledgeObjectKeys.segment(botId, id);
      await objects.putStream(key, [batch.bytes], 'application/octet-stream');
      await index.addSegment(botId, {
        id,
        key,
        docs: batch.docs,
        excerpts: batch.excerpts,
        markers: 0,
        bytes: batch.bytes.length,
        format: SEGMENT_FORMAT,
      });
      excerpts += batch.excerpts;
      const t1 = performance.now();
      storeMs += t1 - t0;
      while (await compact(botId)) merges++;
      mergeMs += performance.now() - t1;
      process.stderr.write(
        `\r${(textBytes / 1e6).toFixed(0)} MB, ${batch.first + 20} files, ${merges} merges, ${((performance.now() - started) / 1000).toFixed(0)} s   `,
      );
      if (textBytes >= untilBytes) break;
    }
  } finally {
    await maker.stop();
  }
  const state = (await index.state(botId))!;
  for (const ref of state.segments) await index.addSegment(stageBot, ref);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify({
      filesDone: n,
      textDone: textBytes,
      textMB: Math.round(textBytes / 1e6),
      excerptsAdded: excerpts,
      segments: state.segments.length,
      indexMB: Math.round(state.segments.reduce((x, r) => x + r.bytes, 0) / 1e6),
      merges,
      mergeSeconds: Math.round(mergeMs / 1000),
      storeSeconds: Math.round(storeMs / 1000),
      // Text to listed, merged segments, batches made on two threads meanwhile.
      MBps: Number(((textBytes - startBytes) / 1e6 / seconds).toFixed(2)),
      peakRssMB: peakRssMb(),
    }),
  );
}

/** Deletes the grown bot's objects that no bot lists any more (the stand-in holds every object in memory). */
async function prune(): Promise<void> {
  const keep = new Set<string>();
  for (const bot of arg('keep')!.split(',')) for (const r of (await index.state(bot))!.segments) keep.add(r.key);
  let token: string | undefined;
  let removed = 0;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: knowledgeObjectKeys.botPrefix(botId),
        ContinuationToken: token,
      }),
    );
    const gone = (page.Contents ?? []).map((o) => o.Key!).filter((k) => !keep.has(k));
    if (gone.length)
      await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: gone.map((Key) => ({ Key })) } }));
    removed += gone.length;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  console.log(JSON.stringify({ removed }));
}

async function merge(): Promise<void> {
  const before = (await index.state(botId))!;
  const t0 = performance.now();
  const merged = await compact(botId, { force: true });
  const seconds = (performance.now() - t0) / 1000;
  const after = (await index.state(botId))!;
  console.log(
    JSON.stringify({
      merged,
      inputs: before.segments.length,
      excerpts: after.segments[0]?.excerpts,
      objectMB: Math.round((after.segments[0]?.bytes ?? 0) / 1e6),
      seconds: Math.round(seconds),
      peakRssMB: peakRssMb(),
    }),
  );
}

/** Each segment of an older format rewritten in the current one (alone: same documents, same markers). */
async function rewrite(): Promise<void> {
  const t0 = performance.now();
  let rewritten = 0;
  // A segment listed by several bots (the sizes share the grown bot's) is rewritten once and swapped in each.
  const done = new Map<string, KnowledgeSegmentRef>();
  const bots = [botId, ...(arg('also')?.split(',') ?? [])];
  for (const bot of bots)
    for (const ref of (await index.state(bot))!.segments) {
      if ((ref.format ?? 3) >= SEGMENT_FORMAT) continue;
      let added = done.get(ref.key);
      if (!added) {
        const reader = await segments.segment(ref.key);
        added = await writeMerged(botId, [reader], () => true, reader.markers);
        if (!added) throw new Error(`could not rewrite ${ref.key}`);
        done.set(ref.key, added);
        rewritten++;
      }
      if (!(await index.replaceSegments(bot, [ref], added, Date.now()))) throw new Error(`could not swap ${ref.key}`);
      process.stderr.write(`\rrewritten ${rewritten} segments, ${((performance.now() - t0) / 1000).toFixed(0)} s   `);
    }
  console.log(
    JSON.stringify({ rewritten, seconds: Math.round((performance.now() - t0) / 1000), peakRssMB: peakRssMb() }),
  );
}

try {
  if (mode === 'build') await build();
  else if (mode === 'rewrite') await rewrite();
  else if (mode === 'prune') await prune();
  else if (mode === 'merge') await merge();
  else throw new Error('usage: build|prune|merge|rewrite --bot <id> ...');
} finally {
  s3.destroy();
  ddb.destroy();
}
