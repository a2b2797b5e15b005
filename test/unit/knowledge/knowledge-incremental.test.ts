import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { makeCompaction } from '#shared/knowledge/compaction.ts';
import { KnowledgeView } from '#shared/knowledge/index/knowledge-view.ts';
import { buildSegment, segmentFromBytes } from '#shared/knowledge/index/segment.ts';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import type { IngestJob } from '#shared/knowledge/knowledge-files.ts';
import { makeKnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';

/**
 * Incremental indexing: work per batch proportional to the batch, replacements and deletes consistent
 * for every search at every step, merges that change what is stored but never what is found.
 */
function setup(options: { mergeFactor?: number; markerGraceMs?: number } = {}) {
  const logger = quietLogger();
  const store = new MemoryKnowledge();
  store.addBot('bot_a');
  const objects = new MemoryObjects();
  const jobs: IngestJob[] = [];
  let queueFailures = 0;
  const manage = makeKnowledgeManagement({
    requireBot: async (_p, id) => store.bot(id)!,
    files: store,
    index: store,
    objects,
    queue: {
      enqueue: async (j) => {
        if (queueFailures > 0) {
          queueFailures--;
          throw new Error('SQS: service unavailable');
        }
        jobs.push(j);
      },
    },
    enqueueBackoffMs: [1, 1, 1],
    logger,
  });
  const segments = new SegmentCache(objects);
  const compaction = { mergeFactor: options.mergeFactor ?? 8, markerGraceMs: options.markerGraceMs ?? 3_600_000 };
  const ingest = makeIngestKnowledge({ files: store, index: store, objects, segments, logger, compaction });
  const search = makeKnowledgeSearch({
    bots: { get: async (id) => store.bot(id) },
    segments: new SegmentCache(objects),
    logger,
  });
  const put = (name: string, text: string) => manage.upload('prj_1', 'bot_a', name, 'text/plain', Buffer.from(text));
  const drain = () => ingest('bot_a', jobs.splice(0), { finalAttempt: false });
  const found = async (query: string) =>
    (await search.search({ botId: 'bot_a', query, topK: 8 })).map((r) => `${r.fileName}: ${r.text}`);
  return {
    store,
    objects,
    jobs,
    manage,
    ingest,
    search,
    put,
    drain,
    found,
    segments,
    compaction,
    failQueue: (n: number) => {
      queueFailures = n;
    },
  };
}

/** A token only one version of one file holds (letters only, so both stemmers keep it whole). */
const token = (file: number, version: number) => `zq${'abcdefghij'[file]}${'klmnopqrst'[version]}xw`;

describe('incremental indexing', () => {
  test('each batch writes one segment of its own files: the work does not grow with the bot', async () => {
    const s = setup({ mergeFactor: 1000 });
    const written: number[] = [];
    const putStream = s.objects.putStream.bind(s.objects);
    s.objects.putStream = async (key, chunks) => {
      const size = await putStream(key, chunks);
      if (key.includes('/segments/')) written.push(size);
      return size;
    };
    for (let i = 0; i < 60; i++) {
      await s.put(`artigo-${i}.md`, `Artigo ${i}: como configurar o recurso ${token(i % 10, i % 10)} passo a passo.`);
      await s.drain();
    }
    expect(written).toHaveLength(60);
    // The 60th batch writes about what the first did, not 60 times the text.
    expect(written.at(-1)!).toBeLessThan(written[0]! * 2);
    expect(s.store.bot('bot_a')!.knowledge.segments).toHaveLength(60);
    expect((await s.found(token(3, 3))).length).toBe(6);
  });

  test('a replacement keeps the old version searchable until the new one is ready, then swaps them in one write', async () => {
    const s = setup();
    await s.put('a.md', `primeira versão ${token(0, 0)}`);
    await s.drain();
    await s.put('a.md', `segunda versão ${token(0, 1)}`);
    expect(await s.found(token(0, 0))).toHaveLength(1); // the new one is processing: the old one answers
    expect(await s.found(token(0, 1))).toEqual([]);
    await s.drain();
    expect(await s.found(token(0, 0))).toEqual([]);
    expect(await s.found(token(0, 1))).toEqual([`a.md: segunda versão ${token(0, 1)}`]);
  });

  test('a new version that cannot be read takes the old one out of search, as its failed status says', async () => {
    const s = setup();
    await s.put('a.txt', `legível ${token(0, 0)}`);
    await s.drain();
    await s.put('a.txt', '\u0000\u0001\u0002\u0000binário');
    await s.drain();
    expect((await s.manage.list('prj_1', 'bot_a', { limit: 10 })).items[0]).toMatchObject({ status: 'failed' });
    expect(await s.found(token(0, 0))).toEqual([]);
  });

  test('a delete leaves search before it answers; the same name uploaded again is searchable', async () => {
    const s = setup();
    await s.put('a.md', `conteúdo ${token(0, 0)}`);
    await s.drain();
    await s.manage.remove('prj_1', 'bot_a', 'a.md');
    expect(await s.found(token(0, 0))).toEqual([]);
    expect((await s.manage.list('prj_1', 'bot_a', { limit: 10 })).items).toEqual([]);
    await s.put('a.md', `de novo ${token(0, 1)}`);
    await s.drain();
    expect(await s.found(token(0, 1))).toHaveLength(1);
    expect(await s.found(token(0, 0))).toEqual([]);
  });

  test('every search during ingestion sees each file whole: its old version or its new one, never a mix', async () => {
    const s = setup();
    // Five files of several excerpts each; every excerpt of version v of file f holds the token (f, v).
    const text = (f: number, v: number) =>
      Array.from({ length: 4 }, (_, i) => `Secção ${i} ${token(f, v)}. ${'texto de enchimento '.repeat(60)}`).join(
        '\n\n',
      );
    for (let f = 0; f < 5; f++) await s.put(`f${f}.md`, text(f, 0));
    await s.drain();
    const seen: string[][] = [];
    const add = s.store.addSegment.bind(s.store);
    s.store.addSegment = async (botId, ref) => {
      seen.push(await s.found(`${token(0, 0)} ${token(0, 1)} ${token(1, 0)} ${token(1, 1)}`));
      const listed = await add(botId, ref);
      seen.push(await s.found(`${token(0, 0)} ${token(0, 1)} ${token(1, 0)} ${token(1, 1)}`));
      return listed;
    };
    await s.put('f0.md', text(0, 1));
    await s.put('f1.md', text(1, 1));
    await s.drain();
    expect(seen).toHaveLength(2);
    for (const results of seen) {
      for (const f of [0, 1]) {
        const mine = results.filter((r) => r.startsWith(`f${f}.md:`));
        const versions = new Set(mine.map((r) => (r.includes(token(f, 0)) ? 0 : 1)));
        expect(versions.size).toBe(1); // never both versions of one file
      }
    }
    expect(seen[0]!.every((r) => r.includes(token(0, 0)) || r.includes(token(1, 0)))).toBe(true);
    expect(seen[1]!.every((r) => r.includes(token(0, 1)) || r.includes(token(1, 1)))).toBe(true);
  });

  test('model check: any sequence of uploads, replacements, deletes, batches and merges is searched as a model says', async () => {
    type Op =
      | { op: 'put'; file: number; version: number }
      | { op: 'delete'; file: number }
      | { op: 'ingest' }
      | { op: 'merge'; all: boolean };
    const ops = fc.array(
      fc.oneof(
        { weight: 5, arbitrary: fc.record({ op: fc.constant('put' as const), file: fc.nat(4), version: fc.nat(9) }) },
        { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fc.nat(4) }) },
        { weight: 3, arbitrary: fc.record({ op: fc.constant('ingest' as const) }) },
        { weight: 2, arbitrary: fc.record({ op: fc.constant('merge' as const), all: fc.boolean() }) },
      ),
      { maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(ops, fc.boolean(), async (sequence: Op[], graceOver) => {
        const s = setup({ mergeFactor: 2, markerGraceMs: graceOver ? -1 : 3_600_000 });
        const merge = makeCompaction({
          index: s.store,
          objects: s.objects,
          segments: s.segments,
          logger: quietLogger(),
          options: s.compaction,
        });
        /** file → searchable version, and the version waiting for its batch. */
        const live = new Map<number, number>();
        const pending = new Map<number, number>();
        for (const step of sequence) {
          if (step.op === 'put') {
            await s.put(`f${step.file}.md`, `arquivo ${token(step.file, step.version)}`);
            pending.set(step.file, step.version);
          } else if (step.op === 'delete') {
            const exists = live.has(step.file) || pending.has(step.file);
            if (exists) await s.manage.remove('prj_1', 'bot_a', `f${step.file}.md`);
            else await expect(s.manage.remove('prj_1', 'bot_a', `f${step.file}.md`)).rejects.toThrow();
            live.delete(step.file);
            pending.delete(step.file);
          } else if (step.op === 'ingest') {
            await s.drain();
            for (const [f, v] of pending) live.set(f, v);
            pending.clear();
          } else await merge('bot_a', { force: step.all });
          for (let f = 0; f < 5; f++)
            for (let v = 0; v < 10; v++) {
              if (!sequence.some((x) => x.op === 'put' && x.file === f && x.version === v)) continue;
              const hits = await s.found(token(f, v));
              expect(hits.length, `file ${f} version ${v} after ${JSON.stringify(step)}`).toBe(
                live.get(f) === v ? 1 : 0,
              );
            }
        }
        expect(s.store.bot('bot_a')!.knowledge.segments.length).toBeLessThanOrEqual(12);
      }),
      { numRuns: 100 },
    );
  });

  test('a merge that leaves a deleted file in another segment carries its delete marker on', async () => {
    const s = setup({ mergeFactor: 2, markerGraceMs: -1 });
    const merge = makeCompaction({
      index: s.store,
      objects: s.objects,
      segments: s.segments,
      logger: quietLogger(),
      options: { mergeFactor: 2, markerGraceMs: -1 },
    });
    await s.put('a.md', `um ${token(0, 0)}`);
    await s.put('b.md', `dois ${token(1, 0)}`);
    await s.put('c.md', `três ${token(2, 0)}`);
    await s.drain(); // one segment of 3 excerpts
    await s.manage.remove('prj_1', 'bot_a', 'a.md'); // a marker segment
    await s.put('d.md', `quatro ${token(3, 0)}`);
    await s.drain(); // a small segment: with the marker, two of the smallest tier, merged after the batch
    expect(await merge('bot_a')).toBe(false); // nothing left to merge
    const refs = s.store.bot('bot_a')!.knowledge.segments;
    expect(refs).toHaveLength(2); // the big segment was not an input
    expect(refs.reduce((n, r) => n + r.markers, 0)).toBe(1);
    expect(await s.found(token(0, 0))).toEqual([]);
    expect(await s.found(token(3, 0))).toHaveLength(1);
  });

  test('merges keep the segment count small and change no result; replaced and deleted excerpts are dropped', async () => {
    const s = setup({ mergeFactor: 4, markerGraceMs: -1 });
    for (let i = 0; i < 64; i++) {
      await s.put(`doc-${i}.md`, `documento ${i} sobre ${token(i % 10, 0)} e ${token(i % 7, 1)}`);
      await s.drain();
    }
    for (let i = 0; i < 16; i++) await s.manage.remove('prj_1', 'bot_a', `doc-${i}.md`);
    for (let i = 16; i < 32; i++) await s.put(`doc-${i}.md`, `documento ${i} revisto ${token(i % 10, 2)}`);
    await s.drain();
    const refs = s.store.bot('bot_a')!.knowledge.segments;
    expect(refs.length).toBeLessThanOrEqual(4 * 3);
    // The same documents built as one segment from scratch rank exactly alike.
    const view = await s.segments.view('bot_a', refs);
    const fresh = await KnowledgeView.open([
      {
        id: 'x',
        segment: await segmentFromBytes(
          buildSegment(
            await Promise.all(
              view.liveDocs().map(async (d) => ({
                fileKey: d.fileKey,
                fileName: d.fileName,
                generation: d.generation,
                language: d.language,
                excerpts: await view.texts(Array.from({ length: d.count }, (_, i) => excerptIdOf(view, d, i))),
              })),
            ),
          ),
        ),
      },
    ]);
    for (const q of [token(3, 0), token(2, 1), `${token(5, 2)} documento`, 'documento revisto']) {
      const top = async (v: KnowledgeView) =>
        v.select(await v.rank(q, { limit: 32 }), 8).map((x) => `${v.docOf(x.excerpt).fileName} ${x.score.toFixed(5)}`);
      expect(await top(view)).toEqual(await top(fresh));
    }
    // A full merge leaves only searchable excerpts.
    const merge = makeCompaction({
      index: s.store,
      objects: s.objects,
      segments: s.segments,
      logger: quietLogger(),
      options: { markerGraceMs: -1 },
    });
    await merge('bot_a', { force: true });
    const after = await s.segments.view('bot_a', s.store.bot('bot_a')!.knowledge.segments);
    expect(after.segments).toHaveLength(1);
    expect(after.excerptCount).toBe(after.liveExcerpts);
    expect(after.liveFiles).toBe(48);
  });
});

/** View-wide id of excerpt `i` of a document. */
function excerptIdOf(view: KnowledgeView, doc: { fileName: string }, i: number): number {
  for (let e = 0; e < view.excerptCount; e++)
    if (view.docOf(e).fileName === doc.fileName && view.docOf(e).live && view.positionInDoc(e) === i) return e;
  throw new Error('no such excerpt');
}

describe('uploads under a burst', () => {
  test('a queue that refuses a moment is tried again: the upload is accepted and the file is processing', async () => {
    const s = setup();
    s.failQueue(2);
    expect(await s.put('a.md', 'texto')).toEqual({ fileName: 'a.md', status: 'processing' });
    expect(s.jobs).toHaveLength(1);
    s.failQueue(10);
    await expect(s.put('b.md', 'texto')).rejects.toThrow(/could not be queued/);
    expect((await s.manage.list('prj_1', 'bot_a', { limit: 10 })).items.map((f) => [f.fileName, f.status])).toEqual([
      ['a.md', 'processing'],
      ['b.md', 'failed'],
    ]);
  });

  test('the listing pages through the files by name', async () => {
    const s = setup();
    const names = Array.from({ length: 23 }, (_, i) => `f-${String(i).padStart(2, '0')}.md`);
    for (const n of names.toReversed()) await s.put(n, 'texto');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.manage.list('prj_1', 'bot_a', { limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((f) => f.fileName));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(names);
  });
});
