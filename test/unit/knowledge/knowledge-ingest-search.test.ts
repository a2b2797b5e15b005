import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Logger } from '#shared/kernel/logger.ts';
import { KnowledgeView, topExcerpts } from '#shared/knowledge/index/knowledge-view.ts';
import { buildSegment, SegmentFormatError, segmentFromBytes } from '#shared/knowledge/index/segment.ts';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import { newGeneration, type IngestJob } from '#shared/knowledge/knowledge-files.ts';
import { makeKnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';

function setup() {
  const logger = quietLogger();
  const store = new MemoryKnowledge();
  store.addBot('bot_a');
  const objects = new MemoryObjects();
  const jobs: IngestJob[] = [];
  const manage = makeKnowledgeManagement({
    requireBot: async (_p, id) => store.bot(id)!,
    files: store,
    index: store,
    objects,
    queue: { enqueue: async (j) => void jobs.push(j) },
    logger,
  });
  const errors: unknown[][] = [];
  const spyLogger = {
    ...logger,
    error: (...args: unknown[]) => void errors.push(args),
    warn: () => {},
    info: () => {},
  } as unknown as Logger;
  const ingest = makeIngestKnowledge({
    files: store,
    index: store,
    objects,
    segments: new SegmentCache(objects),
    logger: spyLogger,
    readPdf: async () => ({ pages: ['texto do pdf sobre contratos'], ocrPages: 0, skippedPages: 0 }),
  });
  const search = makeKnowledgeSearch({
    bots: { get: async (id) => store.bot(id) },
    segments: new SegmentCache(objects, { logger: spyLogger }),
    logger: spyLogger,
  });
  const drain = async (finalAttempt = false) => {
    const batch = jobs.splice(0);
    await ingest('bot_a', batch, { finalAttempt });
  };
  const files = async () => Object.fromEntries(store.list('bot_a').map((f) => [f.fileName, f]));
  return { store, objects, jobs, manage, ingest, search, drain, files, errors };
}

describe('ingestion', () => {
  test('a file replaced before its job ran is skipped; the newest upload wins', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('versão antiga sobre garantia'));
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('versão nova sobre reembolso'));
    await s.drain();
    expect((await s.files())['a.txt']).toMatchObject({ status: 'ready', chunks: 1 });
    expect(await s.search.search({ botId: 'bot_a', query: 'garantia', topK: 5 })).toEqual([]);
    expect((await s.search.search({ botId: 'bot_a', query: 'reembolso', topK: 5 }))[0]!.text).toContain('nova');
    // The replaced upload's bytes are deleted; only the current upload remains.
    const keys = [...s.objects.objects.keys()];
    expect(keys.filter((k) => k.includes('/files/'))).toHaveLength(1);
  });

  test('a file deleted while its job waits never becomes searchable', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('conteúdo apagado'));
    await s.manage.remove('prj_1', 'bot_a', 'a.txt');
    await s.drain();
    expect(await s.files()).toEqual({});
    expect(await s.search.search({ botId: 'bot_a', query: 'conteudo apagado', topK: 5 })).toEqual([]);
  });

  test('an unreadable file fails with its reason, the others of the batch still become ready', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'bin.txt', 'text/plain', Buffer.from([1, 0, 2, 0]));
    await s.manage.upload('prj_1', 'bot_a', 'ok.md', 'text/markdown', Buffer.from('# Prazos\n\nEntrega em 3 dias.'));
    await s.manage.upload('prj_1', 'bot_a', 'c.pdf', 'application/pdf', Buffer.from('%PDF-1.7'));
    await s.drain();
    const f = await s.files();
    expect(f['bin.txt']).toMatchObject({ status: 'failed', error: expect.stringMatching(/binary/) });
    expect(f['ok.md']).toMatchObject({ status: 'ready' });
    expect(f['c.pdf']).toMatchObject({ status: 'ready' });
    expect((await s.search.search({ botId: 'bot_a', query: 'contratos', topK: 5 }))[0]!.fileName).toBe('c.pdf');
  });

  test('a transient failure throws for a retry; on the last attempt the file is marked failed instead', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('algum texto'));
    const batch = s.jobs.splice(0);
    const original = s.objects.get.bind(s.objects);
    s.objects.get = async () => {
      throw new Error('S3 unavailable');
    };
    await expect(s.ingest('bot_a', batch, { finalAttempt: false })).rejects.toThrow('S3 unavailable');
    expect((await s.files())['a.txt']!.status).toBe('processing');
    await s.ingest('bot_a', batch, { finalAttempt: true });
    expect((await s.files())['a.txt']).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/after several attempts/),
    });
    s.objects.get = original;
  });

  test('concurrent batches of one bot: both segments are listed and both files end up searchable', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('alfa contratos'));
    const first = s.jobs.splice(0);
    await s.manage.upload('prj_1', 'bot_a', 'b.txt', 'text/plain', Buffer.from('beta garantias'));
    const second = s.jobs.splice(0);
    await Promise.all([
      s.ingest('bot_a', first, { finalAttempt: false }),
      s.ingest('bot_a', second, { finalAttempt: false }),
    ]);
    expect(Object.values(await s.files()).map((f) => f.status)).toEqual(['ready', 'ready']);
    expect((await s.search.search({ botId: 'bot_a', query: 'alfa', topK: 5 }))[0]!.fileName).toBe('a.txt');
    expect((await s.search.search({ botId: 'bot_a', query: 'beta', topK: 5 }))[0]!.fileName).toBe('b.txt');
    expect(s.store.bot('bot_a')!.knowledge.segments).toHaveLength(2);
  });

  test('a file over its time budget fails with the reason instead of holding the worker; it is not retried', async () => {
    const s = setup();
    let clock = 0;
    const slowClock = makeIngestKnowledge({
      files: s.store,
      index: s.store,
      segments: new SegmentCache(s.objects),
      objects: s.objects,
      logger: quietLogger(),
      fileBudgetMs: 1_000,
      now: () => (clock += 400),
    });
    await s.manage.upload('prj_1', 'bot_a', 'long.md', 'text/markdown', Buffer.from('linha de texto\n'.repeat(2_000)));
    await slowClock('bot_a', s.jobs.splice(0), { finalAttempt: false });
    expect((await s.files())['long.md']).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/longer than the 1 s/),
    });

    const hangingPdf = makeIngestKnowledge({
      files: s.store,
      index: s.store,
      segments: new SegmentCache(s.objects),
      objects: s.objects,
      logger: quietLogger(),
      fileBudgetMs: 100,
      readPdf: (_bytes, { signal } = {}) =>
        new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    });
    await s.manage.upload('prj_1', 'bot_a', 'slow.pdf', 'application/pdf', Buffer.from('%PDF-1.7'));
    await hangingPdf('bot_a', s.jobs.splice(0), { finalAttempt: false });
    expect((await s.files())['slow.pdf']).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/longer than/),
    });
  });
});

describe('search', () => {
  test('reads each piece once; a new batch costs the search reads of the new segment only', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('primeiro documento'));
    await s.drain();
    const first = s.store.bot('bot_a')!.knowledge.segments[0]!.key;
    const before = s.objects.gets;
    for (let i = 0; i < 5; i++) await s.search.search({ botId: 'bot_a', query: 'documento', topK: 5 });
    // Its tail (with the lengths), the term's dictionary block (a rare term's postings are in it), the text block.
    expect(s.objects.gets - before).toBe(3);
    await s.manage.upload('prj_1', 'bot_a', 'b.txt', 'text/plain', Buffer.from('segundo documento'));
    await s.drain();
    const mid = s.objects.gets;
    const results = await s.search.search({ botId: 'bot_a', query: 'documento', topK: 5 });
    expect(results.map((r) => r.fileName).sort()).toEqual(['a.txt', 'b.txt']);
    await s.search.search({ botId: 'bot_a', query: 'documento', topK: 5 });
    const reads = s.objects.readKeys.slice(mid - s.objects.gets);
    expect(reads).toHaveLength(3);
    expect(reads).not.toContain(first);
  });

  test('an index that is not a segment answers no excerpts, and the error is logged', async () => {
    const s = setup();
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('documento'));
    await s.drain();
    const key = s.store.bot('bot_a')!.knowledge.segments[0]!.key;
    s.objects.objects.set(key, Buffer.from('not an index'));
    expect(await s.search.search({ botId: 'bot_a', query: 'documento', topK: 5 })).toEqual([]);
    expect(s.errors.some((e) => String(e[0]).includes('knowledge segment unreadable'))).toBe(true);
  });

  test('filters decide which files are searched; scores are in 0..1 and sorted', async () => {
    const s = setup();
    for (const [name, text] of [
      ['manual_v1.md', 'garantia de doze meses'],
      ['manual-v1.md', 'garantia estendida'],
      ['faq.txt', 'garantia e troca'],
    ]) {
      await s.manage.upload('prj_1', 'bot_a', name!, 'text/plain', Buffer.from(text!));
    }
    await s.drain();
    const files = async (filters: object) =>
      (await s.search.search({ botId: 'bot_a', query: 'garantia', topK: 8, filters })).map((r) => r.fileName).sort();
    expect(await files({})).toEqual(['faq.txt', 'manual-v1.md', 'manual_v1.md']);
    expect(await files({ include: ['manual_v1.md'] })).toEqual(['manual_v1.md']);
    expect(await files({ include: ['MANUAL%'] })).toEqual(['manual-v1.md', 'manual_v1.md']);
    expect(await files({ include: ['manual%'], exclude: ['%_%'] })).toEqual(['manual-v1.md']);
    const results = await s.search.search({ botId: 'bot_a', query: 'garantia estendida doze', topK: 8 });
    for (let i = 1; i < results.length; i++) expect(results[i]!.score).toBeLessThanOrEqual(results[i - 1]!.score);
    for (const r of results) expect(r.score > 0 && r.score <= 1).toBe(true);
  });
});

describe('index format', () => {
  test('round-trips documents, texts and vectors; rejects what is not a segment', async () => {
    const bytes = buildSegment(
      [
        {
          fileKey: 'k1',
          fileName: 'á.txt',
          generation: 'g1',
          language: 'pt',
          excerpts: ['Olá mundo 🌍', 'segunda parte'],
          vectors: [new Float32Array([1, 0]), new Float32Array([0, 1])],
        },
        {
          fileKey: 'k2',
          fileName: 'b.txt',
          generation: 'g2',
          language: 'en',
          excerpts: ['hello world'],
          vectors: [new Float32Array([0.6, 0.8])],
        },
      ],
      { embeddingModel: 'm' },
    );
    const segment = await segmentFromBytes(bytes);
    expect(segment.docs.map((d) => [d.fileName, d.generation, d.first, d.count])).toEqual([
      ['á.txt', 'g1', 0, 2],
      ['b.txt', 'g2', 2, 1],
    ]);
    expect(await segment.texts([0, 1, 2])).toEqual(['Olá mundo 🌍', 'segunda parte', 'hello world']);
    expect(segment.embeddingModel).toBe('m');
    const view = await KnowledgeView.open([{ id: 's1', segment }]);
    const sims = await view.vectorRanking(new Float32Array([0, 1]), 'm', { limit: 10 });
    expect(sims.map((x) => [x.excerpt, Math.round(x.similarity * 10) / 10])).toEqual([
      [1, 1],
      [2, 0.8],
    ]);
    expect(await view.vectorRanking(new Float32Array([0, 1]), 'other-model', { limit: 10 })).toEqual([]);
    const ranked = await view.rank('mundo', { passes: (name) => name === 'á.txt', limit: 8 });
    expect(ranked.map((r) => r.excerpt)).toEqual([0]);
    await expect(segmentFromBytes(Buffer.from('garbage'))).rejects.toThrow(SegmentFormatError);
  });

  test('top-k selection equals a full sort (score desc, then excerpt order)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (raw, k) => {
          const scores = Float32Array.from(raw);
          const candidates = raw.map((_, i) => i).filter((i) => raw[i]! > 0);
          const expected = [...candidates].sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, k);
          expect(topExcerpts(candidates, scores, k).map((x) => x.excerpt)).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

test('generations sort in the order uploads arrive, even within one millisecond', () => {
  const at = new Date();
  const generations = Array.from({ length: 200 }, () => newGeneration(at));
  expect([...generations].sort()).toEqual(generations);
});
