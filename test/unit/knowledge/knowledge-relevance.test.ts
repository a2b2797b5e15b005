import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { expect, test } from 'vitest';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import { makeKnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import type { IngestJob } from '#shared/knowledge/knowledge-files.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';

/**
 * Relevance on a labelled set: 12 documents (6 Portuguese, 6 English; Markdown, text and HTML) written for this
 * test, and 40 queries, each labelled with the one document that answers it. Queries mix languages, drop accents,
 * change singular/plural and paraphrase. recall@k = share of queries whose document is among the first k results.
 * The floors are what this search reaches today: a change that lowers them fails here.
 */
const RECALL_AT_1_FLOOR = 0.95;
const RECALL_AT_5_FLOOR = 1.0;

const fixtures = join(import.meta.dirname, '../../fixtures/knowledge');
const types: Record<string, string> = { '.md': 'text/markdown', '.txt': 'text/plain', '.html': 'text/html' };

test('recall@1 and recall@5 on the labelled set', async () => {
  const logger = quietLogger();
  const store = new MemoryKnowledge();
  const objects = new MemoryObjects();
  store.addBot('bot_rel');
  const jobs: IngestJob[] = [];
  const manage = makeKnowledgeManagement({
    requireBot: async (_p, botId) => store.bot(botId)!,
    files: store,
    index: store,
    objects,
    queue: { enqueue: async (job) => void jobs.push(job) },
    logger,
  });
  const docs = readdirSync(join(fixtures, 'docs'));
  expect(docs.length).toBeGreaterThanOrEqual(10);
  for (const name of docs)
    await manage.upload('prj_1', 'bot_rel', name, types[extname(name)], readFileSync(join(fixtures, 'docs', name)));
  await makeIngestKnowledge({ files: store, index: store, segments: new SegmentCache(objects), objects, logger })(
    'bot_rel',
    jobs,
    { finalAttempt: false },
  );
  expect(store.list('bot_rel').every((f) => f.status === 'ready')).toBe(true);

  const search = makeKnowledgeSearch({
    bots: { get: async (id) => store.bot(id) },
    segments: new SegmentCache(objects),
    logger,
  });
  const queries = JSON.parse(readFileSync(join(fixtures, 'queries.json'), 'utf8')) as {
    query: string;
    expected: string;
  }[];
  expect(queries.length).toBeGreaterThanOrEqual(30);
  let at1 = 0;
  let at5 = 0;
  const misses: string[] = [];
  for (const { query, expected } of queries) {
    const results = await search.search({ botId: 'bot_rel', query, topK: 5 });
    const files = results.map((r) => r.fileName);
    if (files[0] === expected) at1++;
    else misses.push(`${query} → ${files.slice(0, 3).join(', ')} (expected ${expected})`);
    if (files.includes(expected)) at5++;
    for (let i = 1; i < results.length; i++) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
    for (const r of results) {
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
  }
  const recall1 = at1 / queries.length;
  const recall5 = at5 / queries.length;
  console.log(
    `knowledge relevance: ${queries.length} queries over ${docs.length} documents: recall@1 ${recall1.toFixed(3)}, recall@5 ${recall5.toFixed(3)}`,
  );
  if (misses.length) console.log(`top-1 misses:\n  ${misses.join('\n  ')}`);
  expect(recall5).toBeGreaterThanOrEqual(RECALL_AT_5_FLOOR);
  expect(recall1).toBeGreaterThanOrEqual(RECALL_AT_1_FLOOR);
});
