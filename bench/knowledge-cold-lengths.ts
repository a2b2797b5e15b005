/**
 * What a cold query reads of one large segment, in format 5 and in format 6 (each block of lengths' shortest and
 * longest in the tail, so a query reads lengths only where its top can be), and the CPU it takes cold and warm.
 *
 * The segment is one of bench/knowledge-gb.ts's (100 MB of generated text, ~160,000 excerpts: a tenth of its 1 GB
 * bot), read from the S3 stand-in's files; its format-6 copy is written once by the merge path (`--out`, reused).
 * Both are searched in this process, query by query in turn (the order alternating), with the queries of that
 * bench's cold and warm passes (`corpusQueries`: 1 to 5 content words drawn as words are drawn in text):
 * - cold: the segment opened afresh for each query (its last 128 KB first, as search opens one), then ranked (top
 *   20, as a search of topK 5 asks): requests, bytes, and the bytes of excerpt lengths among them; CPU of the rank;
 * - warm: one view per format, the queries asked once, then again (CPU per query of the second pass).
 * Answers are checked identical (excerpt ids, order and scores) between the formats on every query.
 * Usage: npx tsx bench/knowledge-cold-lengths.ts --segment <file> [--out <file>] [--queries 200]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { KnowledgeView, makeWriteMergedSegment, SegmentCache } from '#shared/knowledge/index.ts';
import { MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';
import { machine, median, numberArg } from './lib/harness.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const SEGMENT = option('segment');
if (!SEGMENT) throw new Error('usage: --segment <file> [--out <file>] [--queries 200]');
const OUT = option('out') ?? `${SEGMENT}.format6`;
const QUERIES = numberArg('queries', 200);
const LIMIT = 20;

/** A bucket holding the segment, every ranged read recorded. */
class Recording extends MemoryObjects {
  reads: [number, number][] = [];
  override async getRange(key: string, start: number, end: number) {
    const bytes = await super.getRange(key, start, end);
    this.reads.push([start, start + bytes.length]);
    return bytes;
  }
  override async getTail(key: string, length: number) {
    const got = await super.getTail(key, length);
    this.reads.push([got.size - got.bytes.length, got.size]);
    return got;
  }
}

type Reader = Awaited<ReturnType<SegmentCache['segment']>>;
const lengthsRegion = (reader: Reader) => {
  const { meta, layout } = reader as unknown as { meta: { lengthsAt: number }; layout: { lengthAt: Uint32Array } };
  return [meta.lengthsAt, meta.lengthsAt + (layout.lengthAt.at(-1) ?? 2 * reader.excerptCount)] as const;
};

/** The segment, opened from a bucket of its own with empty caches. */
async function opened(bytes: Uint8Array): Promise<{ reader: Reader; objects: Recording }> {
  const objects = new Recording();
  await objects.put('s', bytes);
  const reader = await new SegmentCache(objects, { memoryBytes: 1024 * 1024 * 1024 }).segment('s');
  return { reader, objects };
}

async function formatSix(format5: Uint8Array): Promise<Uint8Array> {
  if (existsSync(OUT)) return readFileSync(OUT);
  const t = performance.now();
  const { reader, objects } = await opened(format5);
  const write = makeWriteMergedSegment({ objects, logger: quietLogger() }, () => new Date());
  const ref = await write('bench', [reader], () => true, reader.markers);
  const out = objects.objects.get(ref!.key)!;
  writeFileSync(OUT, out);
  console.error(`format 6 written in ${Math.round((performance.now() - t) / 1000)} s: ${OUT}`);
  return out;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Cold {
  requests: number;
  bytes: number;
  lengthBytes: number;
  cpuMs: number;
  answer: string;
}

async function cold(bytes: Uint8Array, query: string): Promise<Cold> {
  const { reader, objects } = await opened(bytes);
  const reads = objects.reads;
  const view = await KnowledgeView.open([{ id: 's', segment: reader }]);
  const atOpen = reads.length;
  const t = cpuMs();
  const ranked = await view.rank(query, { limit: LIMIT });
  const spent = cpuMs() - t;
  const [from, to] = lengthsRegion(reader);
  const overlap = (r: [number, number]) => Math.max(0, Math.min(r[1], to) - Math.max(r[0], from));
  // The opening read (the object's last 128 KB) may hold some lengths of the segment's end: counted as opening.
  const queryReads = reads.slice(atOpen);
  return {
    requests: reads.length,
    bytes: reads.reduce((n, [s, e]) => n + e - s, 0),
    lengthBytes: queryReads.reduce((n, r) => n + overlap(r), 0),
    cpuMs: spent,
    answer: JSON.stringify(ranked.map((r) => [r.excerpt, r.score.toFixed(6)])),
  };
}

async function warm(bytes: Uint8Array, queries: string[]): Promise<{ cpuMs: number; answers: string[] }> {
  const { reader } = await opened(bytes);
  const view = await KnowledgeView.open([{ id: 's', segment: reader }]);
  for (const q of queries) await view.rank(q, { limit: LIMIT });
  const answers: string[] = [];
  const t = cpuMs();
  for (const q of queries) {
    const ranked = await view.rank(q, { limit: LIMIT });
    answers.push(JSON.stringify(ranked.map((r) => [r.excerpt, r.score.toFixed(6)])));
  }
  return { cpuMs: (cpuMs() - t) / queries.length, answers };
}

const five = readFileSync(SEGMENT);
const six = await formatSix(five);
const queries = corpusQueries(QUERIES, 23);
const rows: { five: Cold; six: Cold }[] = [];
for (const [i, q] of queries.entries()) {
  const a = i % 2 ? await cold(five, q) : undefined;
  const b = await cold(six, q);
  const c = a ?? (await cold(five, q));
  if (b.answer !== c.answer) throw new Error(`answers differ for "${q}": ${c.answer} / ${b.answer}`);
  rows.push({ five: c, six: b });
}
const warmQueries = corpusQueries(QUERIES, 11);
const warm5a = await warm(five, warmQueries);
const warm6a = await warm(six, warmQueries);
const warm5b = await warm(five, warmQueries);
const warm6b = await warm(six, warmQueries);
if (warm5a.answers.some((a, i) => a !== warm6a.answers[i])) throw new Error('warm answers differ');

const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const summary = (pick: (r: { five: Cold; six: Cold }) => Cold) => {
  const cs = rows.map(pick);
  return {
    requestsMedian: median(cs.map((c) => c.requests)),
    KBMedian: Math.round(median(cs.map((c) => c.bytes)) / 1024),
    KBp90: Math.round(
      pct(
        cs.map((c) => c.bytes),
        0.9,
      ) / 1024,
    ),
    lengthKBMedian: Math.round(median(cs.map((c) => c.lengthBytes)) / 1024),
    lengthKBp90: Math.round(
      pct(
        cs.map((c) => c.lengthBytes),
        0.9,
      ) / 1024,
    ),
    lengthKBMax: Math.round(Math.max(...cs.map((c) => c.lengthBytes)) / 1024),
    lengthKBMean: Math.round(cs.reduce((n, c) => n + c.lengthBytes, 0) / cs.length / 1024),
    KBMean: Math.round(cs.reduce((n, c) => n + c.bytes, 0) / cs.length / 1024),
    coldCpuMsMedian: Number(median(cs.map((c) => c.cpuMs)).toFixed(1)),
  };
};
const round = (x: number) => Number(x.toFixed(2));
console.log(
  JSON.stringify(
    {
      machine: machine(),
      loadAverage: loadavg().map((l) => round(l)),
      segment: { bytes: five.length, format6Bytes: six.length },
      queries: QUERIES,
      answersIdentical: true,
      format5: { ...summary((r) => r.five), warmCpuMsPerQuery: [round(warm5a.cpuMs), round(warm5b.cpuMs)] },
      format6: { ...summary((r) => r.six), warmCpuMsPerQuery: [round(warm6a.cpuMs), round(warm6b.cpuMs)] },
    },
    null,
    2,
  ),
);
