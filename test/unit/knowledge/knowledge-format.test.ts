import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { HashedEmbeddings } from '#shared/knowledge/adapters/hashed-embeddings.ts';
import { buildSegment } from '#shared/knowledge/index/segment.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';
import { answerDigest, parityBot, parityQueries, paritySegments } from '#test/support/knowledge-parity-corpus.ts';

const fixture = new URL('../../fixtures/knowledge-v3/', import.meta.url);
const golden = JSON.parse(readFileSync(new URL('answers.json', fixture), 'utf8')) as Record<
  'lexical' | 'hybrid',
  Record<string, string[]>
>;
const keyOf = (id: string) => `bots/bot_parity/segments/${id}.sbks`;

async function answers(objects: MemoryObjects, bot = parityBot(keyOf)) {
  const logger = quietLogger();
  const lexical = makeKnowledgeSearch({ bots: { get: async () => bot }, segments: new SegmentCache(objects), logger });
  const hybrid = makeKnowledgeSearch({
    bots: { get: async () => bot },
    segments: new SegmentCache(objects),
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

  test('the same documents in the ranged format rank identically', async () => {
    const objects = new MemoryObjects();
    for (const s of paritySegments())
      await objects.put(
        keyOf(s.id),
        buildSegment(s.documents, { markers: s.markers, embeddingModel: 'hashed-ngrams-v1', builtAt: new Date(0) }),
      );
    expect(await answers(objects)).toEqual(golden);
  });
});
