import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { HashedEmbeddings } from '#shared/knowledge/adapters/hashed-embeddings.ts';
import type { Bot } from '#shared/bots/index.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { makeCompaction } from '#shared/knowledge/compaction.ts';
import { buildSegment, SEGMENT_FORMAT, segmentFromBytes } from '#shared/knowledge/index/segment.ts';
import { mergeSegments } from '#shared/knowledge/index/segment-merge.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';
import { answerDigest, parityBot, parityQueries, paritySegments } from './parity-corpus.ts';

const fixture = new URL('../../fixtures/knowledge-v3/', import.meta.url);
/** The same documents as the format-4 writer stored them (lengths read whole at open); same answers expected. */
const fixtureV4 = new URL('../../fixtures/knowledge-v4/', import.meta.url);
/** And as the format-5 writer stored them (lengths two bytes each, read by block around every posting). */
const fixtureV5 = new URL('../../fixtures/knowledge-v5/', import.meta.url);
const golden = JSON.parse(readFileSync(new URL('answers.json', fixture), 'utf8')) as Record<
  'lexical' | 'hybrid',
  Record<string, string[]>
>;
const keyOf = (id: string) => `bots/bot_parity/segments/${id}.sbks`;

function spies() {
  const errors: string[] = [];
  const counted: string[] = [];
  const logger = { ...quietLogger(), error: (message: string) => void errors.push(message) } as unknown as Logger;
  const metrics: Metrics = { count: (name) => void counted.push(name), milliseconds: () => {} };
  return { errors, counted, logger, metrics };
}

async function answers(
  objects: MemoryObjects,
  bot: Bot = parityBot(keyOf),
  watch: { logger?: Logger; metrics?: Metrics } = {},
) {
  const logger = watch.logger ?? quietLogger();
  const lexical = makeKnowledgeSearch({
    bots: { get: async () => bot },
    segments: new SegmentCache(objects, watch),
    logger,
  });
  const hybrid = makeKnowledgeSearch({
    bots: { get: async () => bot },
    segments: new SegmentCache(objects, watch),
    logger,
    embeddings: new HashedEmbeddings(),
  });
  const out: Record<'lexical' | 'hybrid', Record<string, string[]>> = { lexical: {}, hybrid: {} };
  for (const [i, q] of parityQueries().entries()) {
    out.lexical[i] = answerDigest(await lexical.search({ botId: bot.botId, bot, ...q }));
    out.hybrid[i] = answerDigest(await hybrid.search({ botId: bot.botId, bot, ...q }));
  }
  return out;
}

describe('ranking across index formats', () => {
  test('segments written by the format-3 writer are searched as before (ids, order, scores to 4 decimals)', async () => {
    const objects = new MemoryObjects();
    for (const s of paritySegments())
      await objects.put(keyOf(s.id), readFileSync(new URL(`segments/${s.id}.sbks`, fixture)));
    expect(await answers(objects)).toEqual(golden);
  });

  test('segments written by the format-4 writer are searched as before', async () => {
    const objects = await formatFourFixtures();
    for (const s of paritySegments())
      expect((await segmentFromBytes(objects.objects.get(keyOf(s.id))!)).format).toBe(4);
    expect(await answers(objects)).toEqual(golden);
  });

  test('the same documents in the current format (lengths read by block) rank identically', async () => {
    const objects = await currentObjects();
    for (const s of paritySegments())
      expect((await segmentFromBytes(objects.objects.get(keyOf(s.id))!)).format).toBe(SEGMENT_FORMAT);
    expect(await answers(objects)).toEqual(golden);
  });

  test('segments written by the format-5 writer are searched as before', async () => {
    const objects = new MemoryObjects();
    for (const s of paritySegments())
      await objects.put(keyOf(s.id), readFileSync(new URL(`segments/${s.id}.sbks`, fixtureV5)));
    for (const s of paritySegments())
      expect((await segmentFromBytes(objects.objects.get(keyOf(s.id))!)).format).toBe(5);
    expect(await answers(objects)).toEqual(golden);
  });

  test('a bot with segments of formats 3, 4, 5 and the current one together ranks identically', async () => {
    const objects = await currentObjects();
    const [a, b, c] = paritySegments();
    await objects.put(keyOf(a!.id), readFileSync(new URL(`segments/${a!.id}.sbks`, fixture)));
    await objects.put(keyOf(b!.id), readFileSync(new URL(`segments/${b!.id}.sbks`, fixtureV4)));
    await objects.put(keyOf(c!.id), readFileSync(new URL(`segments/${c!.id}.sbks`, fixtureV5)));
    expect(await answers(objects)).toEqual(golden);
  });
});

async function formatFourFixtures(): Promise<MemoryObjects> {
  const objects = new MemoryObjects();
  for (const s of paritySegments())
    await objects.put(keyOf(s.id), readFileSync(new URL(`segments/${s.id}.sbks`, fixtureV4)));
  return objects;
}

async function currentObjects(): Promise<MemoryObjects> {
  const objects = new MemoryObjects();
  for (const s of paritySegments())
    await objects.put(
      keyOf(s.id),
      buildSegment(s.documents, { markers: s.markers, embeddingModel: 'hashed-ngrams-v1', builtAt: new Date(0) }),
    );
  return objects;
}

/** A bot item holding the parity segments as the store lists them (format-3 refs carry no format). */
function storeWith(format?: number): MemoryKnowledge {
  const store = new MemoryKnowledge();
  store.addBot('bot_parity', 'prj_parity');
  for (const ref of parityBot(keyOf).knowledge.segments)
    void store.addSegment('bot_parity', { ...ref, ...(format ? { format } : {}) });
  return store;
}

describe('upgrade path', () => {
  test('the next merge rewrites format-3 segments in the ranged format; nothing is uploaded again and search answers the same', async () => {
    const objects = new MemoryObjects();
    for (const s of paritySegments())
      await objects.put(keyOf(s.id), readFileSync(new URL(`segments/${s.id}.sbks`, fixture)));
    const store = storeWith();
    // No size tier is full: only the old format asks for this merge.
    const merged = await makeCompaction({
      index: store,
      objects,
      segments: new SegmentCache(objects),
      logger: quietLogger(),
    })('bot_parity');
    expect(merged).toBe(true);
    const refs = store.bot('bot_parity')!.knowledge.segments;
    expect(refs.map((r) => r.format)).toEqual([SEGMENT_FORMAT]);
    expect((await segmentFromBytes(objects.objects.get(refs[0]!.key)!)).format).toBe(SEGMENT_FORMAT);
    expect(await answers(objects, store.bot('bot_parity')!)).toEqual(golden);
  });

  test('format-4 segments are not merged for their format; a merge of them writes the current format, same answers', async () => {
    const objects = await formatFourFixtures();
    const store = storeWith(4);
    const compact = makeCompaction({
      index: store,
      objects,
      segments: new SegmentCache(objects),
      logger: quietLogger(),
    });
    // No size tier is full: format 4 is read by range as it is, so nothing asks for this merge.
    expect(await compact('bot_parity')).toBe(false);
    expect(await compact('bot_parity', { force: true })).toBe(true);
    const refs = store.bot('bot_parity')!.knowledge.segments;
    expect(refs.map((r) => r.format)).toEqual([SEGMENT_FORMAT]);
    expect((await segmentFromBytes(objects.objects.get(refs[0]!.key)!)).format).toBe(SEGMENT_FORMAT);
    expect(await answers(objects, store.bot('bot_parity')!)).toEqual(golden);
  });

  test('a merge of ranged segments also changes no answer', async () => {
    const objects = await currentObjects();
    const store = storeWith(SEGMENT_FORMAT);
    expect(
      await makeCompaction({ index: store, objects, segments: new SegmentCache(objects), logger: quietLogger() })(
        'bot_parity',
        { force: true },
      ),
    ).toBe(true);
    expect(store.bot('bot_parity')!.knowledge.segments).toHaveLength(1);
    expect(await answers(objects, store.bot('bot_parity')!)).toEqual(golden);
  });

  test('a merge streams: its object comes out in small chunks while it is produced', async () => {
    const objects = await currentObjects();
    const inputs = await Promise.all(paritySegments().map((s) => segmentFromBytes(objects.objects.get(keyOf(s.id))!)));
    const sizes: number[] = [];
    for await (const chunk of mergeSegments(inputs, () => true)) sizes.push(chunk.length);
    expect(sizes.length).toBeGreaterThan(20);
    expect(Math.max(...sizes)).toBeLessThan(70 * 1024);
  });
});

describe('segments damaged in storage', () => {
  test('a truncated segment is skipped with a logged error and a metric; the search answers from the others', async () => {
    const objects = await currentObjects();
    const key = keyOf('seg-002');
    objects.objects.set(key, objects.objects.get(key)!.subarray(0, 5000));
    const watch = spies();
    const got = await answers(objects, parityBot(keyOf), watch);
    const without = parityBot(keyOf);
    without.knowledge.segments = without.knowledge.segments.filter((r) => r.id !== 'seg-002');
    expect(got).toEqual(await answers(await currentObjects(), without));
    expect(got.lexical[0]).not.toEqual([]);
    expect(watch.errors.filter((e) => e.includes('knowledge segment unreadable'))).toHaveLength(2); // once per cache
    expect(watch.counted).toEqual(['KnowledgeSegmentsUnreadable', 'KnowledgeSegmentsUnreadable']);
  });

  test('a segment whose blocks are damaged is searched around; its files leave the answers, the others stay', async () => {
    const objects = await currentObjects();
    const key = keyOf('seg-001');
    const damaged = new Uint8Array(objects.objects.get(key)!);
    const reader = await segmentFromBytes(damaged);
    const lengthsAt = (reader as unknown as { meta: { lengthsAt: number } }).meta.lengthsAt;
    for (let i = 16; i < lengthsAt; i += 7) damaged[i]! ^= 0x5a; // texts, dictionary and postings; tail intact
    objects.objects.set(key, damaged);
    const watch = spies();
    const got = await answers(objects, parityBot(keyOf), watch);
    // As if files 0 to 9 (version g1, all in seg-001) had been deleted: newer versions elsewhere still answer.
    const reference = await currentObjects();
    const first = paritySegments()[0]!;
    reference.objects.set(
      key,
      buildSegment([], {
        markers: first.documents.map((d) => ({ fileKey: d.fileKey, generation: d.generation })),
        builtAt: new Date(0),
      }),
    );
    expect(got).toEqual(await answers(reference));
    expect(Object.values(got.lexical).flat().length).toBeGreaterThan(100);
    expect(watch.errors.some((e) => e.includes('knowledge segment unreadable'))).toBe(true);
    expect(watch.counted.length).toBeGreaterThan(0);
  });

  test('a segment whose excerpt lengths are damaged is searched around, its markers still counting', async () => {
    const objects = await currentObjects();
    const key = keyOf('seg-001');
    const damaged = new Uint8Array(objects.objects.get(key)!);
    const reader = await segmentFromBytes(damaged);
    const lengthsAt = (reader as unknown as { meta: { lengthsAt: number } }).meta.lengthsAt;
    damaged[lengthsAt + 3]! ^= 0x5a; // one length of the first block; everything else intact
    objects.objects.set(key, damaged);
    const watch = spies();
    const got = await answers(objects, parityBot(keyOf), watch);
    const reference = await currentObjects();
    const first = paritySegments()[0]!;
    reference.objects.set(
      key,
      buildSegment([], {
        markers: [...first.markers, ...first.documents.map((d) => ({ fileKey: d.fileKey, generation: d.generation }))],
        builtAt: new Date(0),
      }),
    );
    expect(got).toEqual(await answers(reference));
    expect(watch.errors.filter((e) => e.includes('knowledge segment unreadable'))).toHaveLength(2); // once per cache
    expect(watch.counted).toEqual(['KnowledgeSegmentsUnreadable', 'KnowledgeSegmentsUnreadable']);
  });

  test('a merge never publishes a segment it cannot read back', async () => {
    const objects = await currentObjects();
    const store = storeWith(SEGMENT_FORMAT);
    const before = store.bot('bot_parity')!.knowledge.segments;
    // Storage that damages what it is given as a stream (a merge's output).
    const damaging = Object.assign(Object.create(objects) as MemoryObjects, {
      putStream: async (k: string, chunks: AsyncIterable<Uint8Array>) => {
        const size = await objects.putStream(k, chunks);
        const bytes = objects.objects.get(k)!;
        bytes[Math.floor(size / 2)]! ^= 0xff;
        return size;
      },
    });
    const watch = spies();
    const merged = await makeCompaction({
      index: store,
      objects: damaging,
      segments: new SegmentCache(objects),
      logger: watch.logger,
    })('bot_parity', { force: true });
    expect(merged).toBe(false);
    expect(store.bot('bot_parity')!.knowledge.segments).toEqual(before);
    expect([...objects.objects.keys()].sort()).toEqual(before.map((r) => r.key).sort());
    expect(watch.errors.some((e) => e.includes('failed its read-back check'))).toBe(true);
    expect(await answers(objects, store.bot('bot_parity')!)).toEqual(golden);
  });
});
