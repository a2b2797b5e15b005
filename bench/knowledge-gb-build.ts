/**
 * The build and merge halves of bench/knowledge-gb.ts, each in a process of its own so its peak memory is its own
 * (it talks to the parent's stand-ins through the environment the local runner set: DYNAMODB_ENDPOINT, S3_ENDPOINT,
 * TABLE_NAME, BUCKET_KNOWLEDGE).
 *
 *   build --bot <id> --stages 100,500,1000 --stage-bots a,b,c   grows one bot through the ingest path to each size
 *                                                               (MB of text), lists each stage's segments on a bot
 *   merge --bot <id>                                            merges every segment of a bot into one (forced)
 *
 * What the build runs is the ingest worker's path from text to a listed segment: the chunker, language detection,
 * the analyzer's terms, the batch's segment (buildSegment, 20 files a batch), its PUT to the bucket, its listing on
 * the bot item, then the size-tiered merges (makeCompaction, streaming its output to the bucket and reading it back).
 * Bypassed, because other benches measure them and they do not change what is stored: the upload API and the queue,
 * the upload's own GET from the bucket, text extraction (the files are plain text), and the file records. The
 * analyzer's terms come from the production `documentTerms`, memoised per distinct word here without its 200,000-word
 * cache limit (which a million-word vocabulary would clear over and over); the first excerpt of every file is checked
 * against `documentTerms` itself.
 * Prints one JSON line: sizes, rates, peak RSS (VmHWM).
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLogger } from '#shared/kernel/logger.ts';
import { DynamoKnowledgeIndexStore } from '#shared/knowledge/adapters/dynamo-knowledge-index-store.ts';
import { S3KnowledgeObjectStore } from '#shared/knowledge/adapters/s3-knowledge-object-store.ts';
import { makeCompaction } from '#shared/knowledge/compaction.ts';
import { buildSegment, SEGMENT_FORMAT, type SegmentDocumentInput } from '#shared/knowledge/index/segment.ts';
import { fileKeyOf, knowledgeObjectKeys, newGeneration, newSegmentId } from '#shared/knowledge/knowledge-files.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { detectLanguage, documentTerms, type Language } from '#shared/knowledge/text/analyzer.ts';
import { chunkText } from '#shared/knowledge/text/chunker.ts';
import { corpusFile } from './lib/zipf-corpus.ts';

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
const objects = new S3KnowledgeObjectStore(s3, bucket);
const logger = createLogger('bench');
// The inputs of one stage's segments stay referenced by the later stages' bots: nothing merged away is deleted.
const compact = makeCompaction({
  index,
  objects,
  segments: new SegmentCache(objects, { memoryBytes: 192 * 1024 * 1024 }),
  logger,
  options: { retireAfterMs: Number.MAX_SAFE_INTEGER },
});

function peakRssMb(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Math.round(Number(hwm) / 1024);
}

/** documentTerms, word by word, memoised without a limit (same terms: the analyzer works word by word). */
const memo: Record<Language, Map<string, string>> = { pt: new Map(), en: new Map() };
const WORD = /[\p{L}\p{N}]+/gu;
function terms(text: string, language: Language): string[] {
  const out: string[] = [];
  const cache = memo[language];
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    let t = cache.get(word);
    if (t === undefined) {
      t = documentTerms(word, language)[0] ?? '';
      cache.set(word, t);
    }
    if (t) out.push(t);
  }
  return out;
}

async function build(): Promise<void> {
  const stages = arg('stages')!.split(',').map(Number);
  const stageBots = arg('stage-bots')!.split(',');
  const started = performance.now();
  let textBytes = 0;
  let excerpts = 0;
  let n = 0;
  let ingestMs = 0;
  let mergeMs = 0;
  let merges = 0;
  const snapshots: { mb: number; segments: number; bytes: number }[] = [];
  for (const [s, stageMb] of stages.entries()) {
    while (textBytes < stageMb * 1e6) {
      const t0 = performance.now();
      const docs: SegmentDocumentInput[] = [];
      for (let i = 0; i < 20; i++, n++) {
        const file = corpusFile(n);
        textBytes += Buffer.byteLength(file.text);
        const chunks = chunkText(file.text);
        const language = detectLanguage(file.text);
        const fileTerms = chunks.map((c) => terms(c, language));
        if (fileTerms[0]!.join(' ') !== documentTerms(chunks[0]!, language).join(' '))
          throw new Error(`terms differ from documentTerms in ${file.name}`);
        excerpts += chunks.length;
        docs.push({
          fileKey: fileKeyOf(file.name),
          fileName: file.name,
          generation: newGeneration(new Date()),
          language,
          excerpts: chunks,
          terms: fileTerms,
        });
      }
      const at = new Date();
      const id = newSegmentId(at);
      const key = knowledgeObjectKeys.segment(botId, id);
      const bytes = buildSegment(docs, { builtAt: at });
      await objects.putStream(key, [bytes], 'application/octet-stream');
      await index.addSegment(botId, {
        id,
        key,
        docs: docs.length,
        excerpts: docs.reduce((x, d) => x + d.excerpts.length, 0),
        markers: 0,
        bytes: bytes.length,
        format: SEGMENT_FORMAT,
      });
      const t1 = performance.now();
      ingestMs += t1 - t0;
      while (await compact(botId)) merges++;
      mergeMs += performance.now() - t1;
      process.stderr.write(
        `\r${(textBytes / 1e6).toFixed(0)} MB, ${n} files, ${merges} merges, ${((performance.now() - started) / 1000).toFixed(0)} s   `,
      );
    }
    const state = (await index.state(botId))!;
    for (const ref of state.segments) await index.addSegment(stageBots[s]!, ref);
    snapshots.push({
      mb: Math.round(textBytes / 1e6),
      segments: state.segments.length,
      bytes: state.segments.reduce((x, r) => x + r.bytes, 0),
    });
  }
  // Objects no stage lists (merged away in between) are removed: the stand-in holds every object in memory.
  const listed = new Set<string>();
  for (const stageBot of stageBots) for (const r of (await index.state(stageBot))!.segments) listed.add(r.key);
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
    const gone = (page.Contents ?? []).map((o) => o.Key!).filter((k) => !listed.has(k));
    if (gone.length)
      await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: gone.map((Key) => ({ Key })) } }));
    removed += gone.length;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  console.log(
    JSON.stringify({
      textMB: Math.round(textBytes / 1e6),
      files: n,
      excerpts,
      snapshots,
      merges,
      objectsRemoved: removed,
      // Text to listed segments, without the merges; then everything.
      batchesMBps: Number((textBytes / 1e6 / (ingestMs / 1000)).toFixed(2)),
      overallMBps: Number((textBytes / 1e6 / ((ingestMs + mergeMs) / 1000)).toFixed(2)),
      mergeSeconds: Math.round(mergeMs / 1000),
      peakRssMB: peakRssMb(),
    }),
  );
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

try {
  if (mode === 'build') await build();
  else if (mode === 'merge') await merge();
  else throw new Error('usage: build|merge --bot <id> ...');
} finally {
  s3.destroy();
  ddb.destroy();
}
