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
import { KnowledgeView } from '#shared/knowledge/index/knowledge-view.ts';
import { mergeSegments } from '#shared/knowledge/index/segment-merge.ts';
import { openSegment, type RangedObjects, unboundedPieces } from '#shared/knowledge/index/segment.ts';
import type { SegmentReader } from '#shared/knowledge/index/segment-reader.ts';
import { machine, median, numberArg } from './lib/harness.ts';
import { corpusQueries } from './lib/zipf-corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const SEGMENT = option('segment');
if (!SEGMENT) throw new Error('usage: --segment <file> [--out <file>] [--queries 200]');
const OUT = option('out') ?? `${SEGMENT}.format6`;
const QUERIES = numberArg('queries', 200);
const LIMIT = 20;

/** A segment's bytes as the bucket serves them, every ranged read recorded. */
function objectsOf(bytes: Uint8Array, reads: [number, number][]): RangedObjects {
  return {
    getRange: async (_k, start, end) => {
      reads.push([start, end]);
      return bytes.subarray(start, Math.min(end, bytes.length));
    },
    getTail: async (_k, length) => {
      reads.push([Math.max(0, bytes.length - length), bytes.length]);
      return { bytes: bytes.subarray(Math.max(0, bytes.length - length)), size: bytes.length };
    },
  };
}

const lengthsRegion = (reader: SegmentReader) => {
  const { lengthsAt } = (reader as unknown as { meta: { lengthsAt: number } }).meta;
  return [lengthsAt, lengthsAt + 2 * reader.excerptCount] as const;
};

async function formatSix(format5: Uint8Array): Promise<Uint8Array> {
  if (existsSync(OUT)) return readFileSync(OUT);
  const t = performance.now();
  const input = await openSegment('in', objectsOf(format5, []), unboundedPieces());
  const chunks: Uint8Array[] = [];
  for await (const chunk of mergeSegments([input], () => true, { markers: input.markers })) chunks.push(chunk);
  const out = Buffer.concat(chunks);
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
  const reads: [number, number][] = [];
  const reader = await openSegment('s', objectsOf(bytes, reads), unboundedPieces());
  const view = await KnowledgeView.open([{ id: 's', segment: reader }]);
  const opened = reads.length;
  const t = cpuMs();
  const ranked = await view.rank(query, { limit: LIMIT });
  const spent = cpuMs() - t;
  const [from, to] = lengthsRegion(reader);
  const overlap = (r: [number, number]) => Math.max(0, Math.min(r[1], to) - Math.max(r[0], from));
  // The opening read (the object's last 128 KB) may hold some lengths of the segment's end: counted as opening.
  const queryReads = reads.slice(opened);
  return {
    requests: reads.length,
    bytes: reads.reduce((n, [s, e]) => n + e - s, 0),
    lengthBytes: queryReads.reduce((n, r) => n + overlap(r), 0),
    cpuMs: spent,
    answer: JSON.stringify(ranked.map((r) => [r.excerpt, r.score.toFixed(6)])),
  };
}

async function warm(bytes: Uint8Array, queries: string[]): Promise<{ cpuMs: number; answers: string[] }> {
  const reader = await openSegment('s', objectsOf(bytes, []), unboundedPieces());
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

const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const summary = (pick: (r: { five: Cold; six: Cold }) => Cold) => {
  const cs = rows.map(pick);
  return {
    requestsMedian: median(cs.map((c) => c.requests)),
    KBMedian: Math.round(median(cs.map((c) => c.bytes)) / 1024),
    KBp90: Math.round(pct(cs.map((c) => c.bytes), 0.9) / 1024),
    lengthKBMedian: Math.round(median(cs.map((c) => c.lengthBytes)) / 1024),
    lengthKBp90: Math.round(pct(cs.map((c) => c.lengthBytes), 0.9) / 1024),
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
