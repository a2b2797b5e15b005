import { beforeAll, describe, expect, test } from 'vitest';
import { knowledgeCacheFromConfig } from '#shared/knowledge/wiring.ts';
import type { Bot, KnowledgeSegmentRef } from '#shared/bots/index.ts';
import { parseConfig } from '#shared/kernel/config.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import {
  buildSegment,
  openSegment,
  SEGMENT_FORMAT,
  type SegmentDocumentInput,
  segmentFromBytes,
  unboundedPieces,
} from '#shared/knowledge/index/segment.ts';
import { mergeSegments } from '#shared/knowledge/index/segment-merge.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { documentTerms, type Language } from '#shared/knowledge/text/analyzer.ts';
import { MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';
import { seededRandom } from '#test/support/seeded-random.ts';

/** A bucket that remembers every ranged read (key, start, end). */
class RecordingObjects extends MemoryObjects {
  ranges: { key: string; start: number; end: number }[] = [];
  override async getRange(key: string, start: number, end: number) {
    const bytes = await super.getRange(key, start, end);
    this.ranges.push({ key, start, end: start + bytes.length });
    return bytes;
  }
  override async getTail(key: string, length: number) {
    const got = await super.getTail(key, length);
    this.ranges.push({ key, start: got.size - got.bytes.length, end: got.size });
    return got;
  }
}

const SYLLABLES = 'b c d f g l m n p r s t v'.split(' ').flatMap((c) => 'a e i o u'.split(' ').map((v) => c + v));
const VOCABULARY = (() => {
  const random = seededRandom(7);
  const words = new Set<string>();
  while (words.size < 20_000) {
    let w = '';
    for (let i = 0, n = 2 + Math.floor(random() * 3); i < n; i++)
      w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
})();
/** Log-uniform ranks: about Zipf's law, so some terms are in most excerpts and most in a few. */
const wordOf = (random: () => number) =>
  VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY.length))))]!;

const termMemo = new Map<string, string>();
/** The analyzer's terms, word by word (it works word by word), memoised so megabytes of text build in seconds. */
function termsOf(text: string, language: Language): string[] {
  return text.split(' ').flatMap((w) => {
    let t = termMemo.get(w);
    if (t === undefined) {
      t = documentTerms(w, language)[0] ?? '';
      termMemo.set(w, t);
    }
    return t ? [t] : [];
  });
}

/** `files` files of `excerpts` excerpts of about 1,000 characters each. */
function corpus(seed: number, files: number, excerpts: number): SegmentDocumentInput[] {
  const random = seededRandom(seed);
  return Array.from({ length: files }, (_, f) => {
    const texts = Array.from({ length: excerpts }, () => {
      const words: string[] = [];
      for (let n = 0; n < 1000; n += words.at(-1)!.length + 1) words.push(wordOf(random));
      return words.join(' ');
    });
    return {
      fileKey: `k${seed}-${f}`,
      fileName: `file-${seed}-${f}.txt`,
      generation: `g${seed}`,
      language: 'pt' as const,
      excerpts: texts,
      terms: texts.map((t) => termsOf(t, 'pt')),
    };
  });
}

function botOver(refs: KnowledgeSegmentRef[], botId = 'bot_big'): Bot {
  const at = new Date(0).toISOString();
  return {
    botId,
    projectId: 'prj_1',
    name: botId,
    instructions: 'x',
    createdAt: at,
    updatedAt: at,
    knowledge: { version: 1, segments: refs },
  };
}

function refOf(key: string, id: string, bytes: Uint8Array, docs: SegmentDocumentInput[]): KnowledgeSegmentRef {
  const excerpts = docs.reduce((n, d) => n + d.excerpts.length, 0);
  return { id, key, docs: docs.length, excerpts, markers: 0, bytes: bytes.length, format: SEGMENT_FORMAT };
}

const QUERIES = Array.from({ length: 40 }, (_, i) => {
  const random = seededRandom(100 + i);
  return Array.from({ length: 1 + (i % 3) }, () => wordOf(random)).join(' ');
});

// About 8 MB of text in one segment (an object of about 5 MB): larger than every bound set below.
let bigDocs: SegmentDocumentInput[];
let big: Uint8Array;
const BIG_KEY = 'bots/bot_big/segments/big.sbks';
beforeAll(() => {
  bigDocs = corpus(1, 400, 20);
  big = buildSegment(bigDocs, { builtAt: new Date(0) });
}, 120_000);

async function searchAll(cache: SegmentCache, bot: Bot) {
  const search = makeKnowledgeSearch({ bots: { get: async () => bot }, segments: cache, logger: quietLogger() });
  const out: { fileName: string; score: number; text: string }[][] = [];
  for (const query of QUERIES) out.push(await search.search({ botId: bot.botId, bot, query, topK: 5 }));
  return out;
}

describe('a query reads by range', () => {
  test('only the tail, the query terms’ pieces and the text blocks of the excerpts it returns', async () => {
    const objects = new RecordingObjects();
    await objects.put(BIG_KEY, big);
    const bot = botOver([refOf(BIG_KEY, 'big', big, bigDocs)]);
    const search = makeKnowledgeSearch({
      bots: { get: async () => bot },
      segments: new SegmentCache(objects),
      logger: quietLogger(),
    });
    const opened = await openSegment(BIG_KEY, objects, unboundedPieces());
    const { layout } = opened as unknown as { layout: { dictAt: Float64Array } };
    const textsEnd = layout.dictAt[0]!;
    let textBlocksRead = 0;
    for (const [i, query] of QUERIES.slice(0, 10).entries()) {
      objects.ranges = [];
      const got = await search.search({ botId: bot.botId, bot, query, topK: 3 });
      expect(got.length).toBeGreaterThan(0);
      const read = objects.ranges.reduce((n, r) => n + r.end - r.start, 0);
      // The first query opens the segment (one read of its last 128 KB); no query reads it whole.
      expect(read).toBeLessThan((i === 0 ? 0.15 : 0.1) * big.length);
      expect(Math.max(...objects.ranges.map((r) => r.end - r.start))).toBeLessThanOrEqual(128 * 1024);
      // Text is read for the excerpts returned only: at most one block each.
      const textReads = objects.ranges.filter((r) => r.end <= textsEnd);
      expect(textReads.length).toBeLessThanOrEqual(got.length);
      textBlocksRead += textReads.length;
    }
    expect(textBlocksRead).toBeGreaterThan(0);
    expect(big.length).toBeGreaterThan(3_000_000);
  });
});

/** 100,000 short excerpts (200 KB of lengths, out of reach of a segment's opening read); one word in four of them. */
function shortExcerpts(): SegmentDocumentInput[] {
  const random = seededRandom(11);
  return Array.from({ length: 100 }, (_, f) => {
    const texts = Array.from({ length: 2000 }, (_, i) =>
      [
        wordOf(random),
        wordOf(random),
        f * 2000 + i === 77_777 || (f === 3 && i % 900 === 5) ? 'zumbirova' : wordOf(random),
      ].join(' '),
    );
    return {
      fileKey: `k${f}`,
      fileName: `file-${f}.txt`,
      generation: 'g1',
      language: 'pt' as const,
      excerpts: texts,
      terms: texts.map((t) => termsOf(t, 'pt')),
    };
  });
}

/** The segment of {@link shortExcerpts}, built once for the tests that read it. */
let short: { docs: SegmentDocumentInput[]; bytes: Uint8Array } | undefined;
function shortSegment(): { docs: SegmentDocumentInput[]; bytes: Uint8Array } {
  if (!short) {
    const docs = shortExcerpts();
    short = { docs, bytes: buildSegment(docs, { builtAt: new Date(0) }) };
  }
  return short;
}

describe('excerpt lengths read by block', () => {
  test('a cold query reads the blocks of lengths around its postings, not every excerpt’s length', async () => {
    const { docs, bytes } = shortSegment();
    const key = 'bots/bot_lengths/segments/s.sbks';
    const objects = new RecordingObjects();
    await objects.put(key, bytes);
    const bot = botOver([refOf(key, 's', bytes, docs)], 'bot_lengths');
    const opened = await openSegment(key, objects, unboundedPieces());
    const { meta, layout } = opened as unknown as { meta: { lengthsAt: number }; layout: { lengthAt: Uint32Array } };
    const lengthsAt = meta.lengthsAt;
    const lengthsEnd = lengthsAt + layout.lengthAt.at(-1)!;
    expect(opened.excerptCount).toBe(200_000);
    objects.ranges = [];
    const search = makeKnowledgeSearch({
      bots: { get: async () => bot },
      segments: new SegmentCache(objects),
      logger: quietLogger(),
    });
    const got = await search.search({ botId: bot.botId, bot, query: 'zumbirova', topK: 5 });
    expect(got.map((g) => g.fileName).sort()).toEqual(['file-3.txt', 'file-3.txt', 'file-3.txt', 'file-38.txt']);
    const lengthReads = objects.ranges.filter(
      (r) => r.start < lengthsEnd && r.end > lengthsAt && r.end - r.start < 100_000,
    );
    const lengthBytes = lengthReads.reduce((n, r) => n + Math.min(r.end, lengthsEnd) - Math.max(r.start, lengthsAt), 0);
    expect(lengthBytes).toBeGreaterThan(0);
    // Blocks of 512 lengths (512 bytes: one byte each, all under 256): 6,005 to 7,805 in one read with the blocks
    // between, and 77,777: 3 KB of 200 KB.
    expect(lengthBytes).toBe(6 * 512);
    expect(lengthsEnd - lengthsAt).toBe(200_000);
    // The opening read (the object's last 128 KB) ends before the lengths' reach.
    expect(objects.ranges.some((r) => r.start <= lengthsAt && r.end >= lengthsEnd)).toBe(false);
  });

  test('a block of lengths found damaged by a query: that segment is skipped with a logged error and a metric', async () => {
    const { docs, bytes } = shortSegment();
    const other = [
      {
        ...docs[7]!,
        fileKey: 'other',
        fileName: 'other.txt',
        excerpts: ['zumbirova bola'],
        terms: [termsOf('zumbirova bola', 'pt')],
      },
    ];
    const otherBytes = buildSegment(other, { builtAt: new Date(0) });
    const objects = new RecordingObjects();
    const { lengthsAt } = ((await segmentFromBytes(bytes)) as unknown as { meta: { lengthsAt: number } }).meta;
    const damaged = new Uint8Array(bytes);
    damaged[lengthsAt + 77_777]! ^= 0x01; // the length (one byte) of the excerpt holding the word, off by one
    await objects.put('bots/bot_d/segments/a.sbks', damaged);
    await objects.put('bots/bot_d/segments/b.sbks', otherBytes);
    const bot = botOver(
      [
        refOf('bots/bot_d/segments/a.sbks', 'a', damaged, docs),
        refOf('bots/bot_d/segments/b.sbks', 'b', otherBytes, other),
      ],
      'bot_d',
    );
    const errors: string[] = [];
    const counted: string[] = [];
    const logger = { ...quietLogger(), error: (message: string) => void errors.push(message) } as unknown as Logger;
    const metrics: Metrics = { count: (name) => void counted.push(name), milliseconds: () => {} };
    const search = makeKnowledgeSearch({
      bots: { get: async () => bot },
      segments: new SegmentCache(objects, { logger, metrics }),
      logger,
    });
    const got = await search.search({ botId: bot.botId, bot, query: 'zumbirova', topK: 5 });
    expect(got.map((g) => g.fileName)).toEqual(['other.txt']);
    expect(errors).toEqual(['knowledge segment unreadable; the bot is searched without it']);
    expect(counted).toEqual(['KnowledgeSegmentsUnreadable']);
  });
});

describe('bounded caches', () => {
  test('a bot larger than the cache is searched within its memory bound, with the answers of an unbounded cache', async () => {
    const bot = botOver([refOf(BIG_KEY, 'big', big, bigDocs)]);
    const roomy = new MemoryObjects();
    await roomy.put(BIG_KEY, big);
    const unbounded = await searchAll(new SegmentCache(roomy, { memoryBytes: 1024 * 1024 * 1024 }), bot);
    // A fifth of the object: its tail and view (a third of the bound) and the pieces of a few queries.
    const bound = 1024 * 1024;
    const objects = new MemoryObjects();
    await objects.put(BIG_KEY, big);
    const small = new SegmentCache(objects, { memoryBytes: bound });
    const search = makeKnowledgeSearch({ bots: { get: async () => bot }, segments: small, logger: quietLogger() });
    const bounded: typeof unbounded = [];
    for (const query of QUERIES) {
      bounded.push(await search.search({ botId: bot.botId, bot, query, topK: 5 }));
      expect(small.memoryBytes).toBeLessThanOrEqual(bound);
    }
    expect(bounded).toEqual(unbounded);
    // Pieces were let go and read again when asked for again: the bound was what held memory down.
    expect(objects.bytesRead).toBeGreaterThan(roomy.bytesRead);
  });

  test('queries asked again read nothing: their terms’ postings and excerpts’ texts stay while the blocks go', async () => {
    const bot = botOver([refOf(BIG_KEY, 'big', big, bigDocs)]);
    const objects = new MemoryObjects();
    await objects.put(BIG_KEY, big);
    // The text blocks the queries' excerpts come from (64 KB each, unpacked) are several times this bound.
    const cache = new SegmentCache(objects, { memoryBytes: 4 * 1024 * 1024 });
    const first = await searchAll(cache, bot);
    const readsBefore = objects.gets;
    expect(await searchAll(cache, bot)).toEqual(first);
    expect(objects.gets - readsBefore).toBe(0);
    expect(cache.memoryBytes).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  test('the views of many bots are let go by bytes, least recently used first', async () => {
    const objects = new MemoryObjects();
    const bots: Bot[] = [];
    for (let b = 0; b < 30; b++) {
      const docs = corpus(1000 + b, 4, 5);
      const bytes = buildSegment(docs, { builtAt: new Date(0) });
      const key = `bots/bot_${b}/segments/s.sbks`;
      await objects.put(key, bytes);
      bots.push(botOver([refOf(key, 's', bytes, docs)], `bot_${b}`));
    }
    const bound = 150 * 1024;
    const cache = new SegmentCache(objects, { memoryBytes: bound });
    const search = makeKnowledgeSearch({
      bots: { get: async () => undefined },
      segments: cache,
      logger: quietLogger(),
    });
    for (const bot of bots) {
      expect(await search.search({ botId: bot.botId, bot, query: QUERIES[0]!, topK: 3 })).not.toEqual([]);
      expect(cache.memoryBytes).toBeLessThanOrEqual(bound);
    }
    // The most recent bot is still open (no read to search it again); the first was let go (its tail read again).
    const before = objects.gets;
    await search.search({ botId: 'bot_29', bot: bots[29]!, query: QUERIES[0]!, topK: 3 });
    expect(objects.gets).toBe(before);
    await search.search({ botId: 'bot_0', bot: bots[0]!, query: QUERIES[0]!, topK: 3 });
    expect(objects.readKeys.slice(before)).toContain('bots/bot_0/segments/s.sbks');
  });

  test('caches are a tenth of the function memory, 64 to 100 MB: search (1,769 MB), completion, chat and responses (1,024 MB) hold 100 MB', () => {
    const env = (memory?: string) =>
      parseConfig({ TABLE_NAME: 't', ...(memory ? { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory } : {}) });
    const mb = (o: { memoryBytes?: number; diskBytes?: number }) => [o.memoryBytes! / 2 ** 20, o.diskBytes! / 2 ** 20];
    expect(mb(knowledgeCacheFromConfig(env('1024')))).toEqual([100, 384]);
    expect(mb(knowledgeCacheFromConfig(env('1769')))).toEqual([100, 384]);
    expect(mb(knowledgeCacheFromConfig(env('768')))).toEqual([76, 384]);
    expect(mb(knowledgeCacheFromConfig(env('256')))).toEqual([64, 384]);
    expect(mb(knowledgeCacheFromConfig(env('10240')))).toEqual([100, 384]);
  });
});

describe('a merge streams its inputs', () => {
  test('inputs larger than its window are read a window at a time, never whole', async () => {
    const objects = new RecordingObjects();
    const smallDocs = corpus(2, 5, 5);
    const small = buildSegment(smallDocs, { builtAt: new Date(0) });
    await objects.put(BIG_KEY, big);
    await objects.put('bots/bot_big/segments/small.sbks', small);
    // Pieces not kept: every read the merge needs is seen.
    const pieces = {
      piece: <T>(_id: string, fetch: () => Promise<Uint8Array>, decode: (r: Uint8Array) => { value: T }) =>
        fetch().then((r) => decode(r).value),
    };
    const inputs = await Promise.all([
      openSegment(BIG_KEY, objects, pieces),
      openSegment('bots/bot_big/segments/small.sbks', objects, pieces),
    ]);
    objects.ranges = [];
    let out = 0;
    for await (const chunk of mergeSegments(inputs, () => true)) out += chunk.length;
    const bigReads = objects.ranges.filter((r) => r.key === BIG_KEY);
    expect(big.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(Math.max(...bigReads.map((r) => r.end - r.start))).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Every byte of the input is read (texts copied, dictionaries merged), each window once.
    expect(bigReads.reduce((n, r) => n + r.end - r.start, 0)).toBeLessThan(big.length * 1.1);
    expect(out).toBeGreaterThan(big.length);
  }, 60_000);
});
