import { describe, expect, test } from 'vitest';
import { makeAcceptArrival, objectsCreatedIn } from '#shared/knowledge/arrivals.ts';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import type { IngestJob, KnowledgeUploadInbox } from '#shared/knowledge/knowledge-files.ts';
import { makeKnowledgeManagement } from '#shared/knowledge/manage.ts';
import { makePdfPageReader } from '#shared/knowledge/pdf-reader.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { OcrEngineError, type OcrEngine } from '#shared/pdf/index.ts';
import { mixedPdf, scannedPdf } from '#test/support/pdf-fixtures.ts';
import { MemoryKnowledge, MemoryObjects, quietLogger } from '#test/support/fakes/knowledge.ts';

/** The bucket as the browser leaves it: objects with their stored Content-Type. */
class MemoryInbox implements KnowledgeUploadInbox {
  readonly types = new Map<string, string>();
  constructor(private readonly objects: MemoryObjects) {}
  async presignPost(key: string, conditions: { contentType: string }) {
    return { url: 'http://bucket.test/', fields: { key, 'Content-Type': conditions.contentType } };
  }
  async describe(key: string) {
    const bytes = this.objects.objects.get(key);
    return bytes ? { bytes: bytes.length, contentType: this.types.get(key) } : undefined;
  }
  /** What S3 does when the form is posted. */
  land(fields: Record<string, string>, body: string | Uint8Array, contentType = fields['Content-Type']!) {
    this.objects.objects.set(fields.key!, typeof body === 'string' ? Buffer.from(body) : body);
    this.types.set(fields.key!, contentType);
    return { key: fields.key!, at: new Date() };
  }
}

function setup(readPdf?: Parameters<typeof makeIngestKnowledge>[0]['readPdf']) {
  const logger = quietLogger();
  const store = new MemoryKnowledge();
  store.addBot('bot_a');
  const objects = new MemoryObjects();
  const inbox = new MemoryInbox(objects);
  const jobs: IngestJob[] = [];
  let clock = new Date();
  const manage = makeKnowledgeManagement({
    requireBot: async (_p, id) => store.bot(id)!,
    files: store,
    index: store,
    objects,
    inbox,
    queue: { enqueue: async (j) => void jobs.push(j) },
    logger,
    now: () => clock,
  });
  const list = async () => (await manage.list('prj_1', 'bot_a', { limit: 1000 })).items;
  const accept = makeAcceptArrival({ files: store, objects, inbox, logger });
  const ingest = makeIngestKnowledge({
    files: store,
    index: store,
    segments: new SegmentCache(objects),
    objects,
    logger,
    ...(readPdf ? { readPdf } : {}),
  });
  const search = makeKnowledgeSearch({
    bots: { get: async (id) => store.bot(id) },
    segments: new SegmentCache(objects),
    logger,
  });
  const file = async (name: string) => store.list('bot_a').find((f) => f.fileName === name);
  const arrive = async (arrived: { key: string; at: Date }) => {
    const job = await accept(arrived);
    if (job) await ingest('bot_a', [...jobs.splice(0), job], { finalAttempt: false });
  };
  const found = async (query: string) =>
    (await search.search({ botId: 'bot_a', query, topK: 5 })).map((e) => e.text).join(' ');
  return {
    manage,
    inbox,
    file,
    arrive,
    found,
    clock,
    list,
    later: (ms: number) => {
      clock = new Date(clock.getTime() + ms);
    },
  };
}

describe('browser uploads: what arrives becomes searchable only if it is what the URL was issued for', () => {
  test('issued: processing at once; the object lands: ready and searchable', async () => {
    const s = setup();
    const url = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'faq.txt', 'text/plain');
    expect(url).toMatchObject({ method: 'POST', maxBytes: 26_214_400 });
    expect(Date.parse(url.expiresAt) - s.clock.getTime()).toBe(15 * 60_000);
    expect(await s.file('faq.txt')).toMatchObject({ status: 'processing', bytes: 0 });
    await s.arrive(s.inbox.land(url.fields, 'O suporte atende por telefone e chat.'));
    expect(await s.file('faq.txt')).toMatchObject({ status: 'ready', chunks: 1, bytes: 37 });
    expect(await s.found('suporte telefone')).toContain('telefone');
  });

  test('a replaced URL, posted late, is dropped and its object deleted; the current one is unaffected', async () => {
    const s = setup();
    const old = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'faq.txt', 'text/plain');
    const current = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'faq.txt', 'text/plain');
    await s.arrive(s.inbox.land(current.fields, 'Entregas em todo o Brasil.'));
    await s.arrive(s.inbox.land(old.fields, 'Entregas suspensas indefinidamente.'));
    expect(await s.file('faq.txt')).toMatchObject({ status: 'ready' });
    expect(await s.found('entregas suspensas')).not.toContain('suspensas');
    expect(await s.inbox.describe(old.fields.key!)).toBeUndefined();
  });

  test('after expiry, another type, over 25 MB, empty: failed with the reason, nothing searchable', async () => {
    const s = setup();
    const late = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'tarde.txt', 'text/plain');
    await s.arrive({
      ...s.inbox.land(late.fields, 'texto atrasado'),
      at: new Date(s.clock.getTime() + 15 * 60_000 + 1000),
    });
    expect(await s.file('tarde.txt')).toMatchObject({ status: 'failed', error: expect.stringMatching(/expired/) });

    const typed = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'tipo.md', 'text/markdown');
    await s.arrive(s.inbox.land(typed.fields, '<p>html</p>', 'text/html'));
    expect((await s.file('tipo.md'))?.error).toMatch(/text\/html, not the declared text\/markdown/);

    const big = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'grande.txt', 'text/plain');
    await s.arrive(s.inbox.land(big.fields, new Uint8Array(26_214_401).fill(0x61)));
    expect((await s.file('grande.txt'))?.error).toMatch(/26214401 bytes.*25 MB/);

    const empty = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'vazio.txt', 'text/plain');
    await s.arrive(s.inbox.land(empty.fields, ''));
    expect((await s.file('vazio.txt'))?.error).toMatch(/empty/);
    expect(await s.found('atrasado html aaaa')).toBe('');
  });

  test('a URL that expires with nothing posted leaves its file failed, not processing for ever', async () => {
    const s = setup();
    await s.manage.issueUploadUrl('prj_1', 'bot_a', 'nunca.txt', 'text/plain');
    const posted = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'enviado.txt', 'text/plain');
    s.inbox.land(posted.fields, 'chegou a tempo'); // landed; its S3 event is still on the queue
    expect((await s.list()).map((f) => f.status)).toEqual(['processing', 'processing']);
    s.later(15 * 60_000 + 1);
    const files = await s.list();
    expect(files.find((f) => f.fileName === 'nunca.txt')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/before it expired/),
    });
    expect(files.find((f) => f.fileName === 'enviado.txt')?.status).toBe('processing');
    expect((await s.file('nunca.txt'))?.status).toBe('failed');
  });

  test('the same name as a PUT: the newer one replaces the older, whichever way it came', async () => {
    const s = setup();
    const url = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'a.txt', 'text/plain');
    await s.manage.upload('prj_1', 'bot_a', 'a.txt', 'text/plain', Buffer.from('conteudo enviado por PUT'));
    await s.arrive(s.inbox.land(url.fields, 'conteudo do navegador'));
    expect(await s.found('conteudo navegador')).not.toContain('navegador');
  });
});

describe('S3 event notification bodies', () => {
  test('created objects with their keys decoded; the set-up test event and jobs carry none', () => {
    const body = {
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Post',
          eventTime: '2026-01-01T10:00:00.000Z',
          s3: { object: { key: 'bots/bot_a/incoming/k%2Bx/g+1.upload', size: 3 } },
        },
        { eventSource: 'aws:s3', eventName: 'ObjectRemoved:Delete', s3: { object: { key: 'x' } } },
      ],
    };
    expect(objectsCreatedIn(body)).toEqual([
      { key: 'bots/bot_a/incoming/k+x/g 1.upload', at: new Date('2026-01-01T10:00:00.000Z') },
    ]);
    expect(objectsCreatedIn({ Service: 'Amazon S3', Event: 's3:TestEvent' })).toEqual([]);
    expect(objectsCreatedIn({ kind: 'file', botId: 'bot_a' })).toEqual([]);
  });
});

describe('OCR in ingestion', () => {
  const throttled: OcrEngine = {
    name: 'textract',
    concurrency: 1,
    recognize: async (image) => {
      throw new OcrEngineError(`Textract failed on page ${image.page} (ProvisionedThroughputExceededException)`);
    },
  };

  test('Textract throttled past its retries: the file fails naming the cause; the other files stay searchable', async () => {
    const s = setup(makePdfPageReader({ engine: throttled }));
    const text = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'politica.txt', 'text/plain');
    await s.arrive(s.inbox.land(text.fields, 'Politica de privacidade e cookies.'));
    const scan = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'scan.pdf', 'application/pdf');
    await s.arrive(s.inbox.land(scan.fields, await scannedPdf('Contrato assinado em cartorio')));
    expect(await s.file('scan.pdf')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/OCR.*ProvisionedThroughputExceededException/),
    });
    expect(await s.found('privacidade cookies')).toContain('privacidade');
  }, 30_000);

  test('a PDF that takes longer than the read budget fails saying so', async () => {
    const slow: OcrEngine = {
      name: 'slow',
      concurrency: 1,
      recognize: (_image, signal) =>
        new Promise((_resolve, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const s = setup(makePdfPageReader({ engine: slow }, 300));
    const url = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'lento.pdf', 'application/pdf');
    await s.arrive(s.inbox.land(url.fields, await scannedPdf('Pagina lenta')));
    expect(await s.file('lento.pdf')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/longer than 0 s/),
    });
  }, 30_000);

  test('pages that stay unreadable are skipped; the pages read by OCR are counted', async () => {
    const engine: OcrEngine = {
      name: 'fake',
      concurrency: 1,
      recognize: async (image) => ({ text: `Texto reconhecido da pagina ${image.page}`, confidence: 90 }),
    };
    const s = setup(makePdfPageReader({ engine }));
    const url = await s.manage.issueUploadUrl('prj_1', 'bot_a', 'misto.pdf', 'application/pdf');
    const pdf = await mixedPdf([{ text: 'Capa digitada' }, { scan: 'qualquer' }, { blank: true }]);
    await s.arrive(s.inbox.land(url.fields, pdf));
    expect(await s.file('misto.pdf')).toMatchObject({ status: 'ready', ocrPages: 1 });
    expect(await s.found('reconhecido pagina')).toContain('pagina 2');
  }, 30_000);
});
