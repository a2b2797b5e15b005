import type { Logger } from '../kernel/logger.ts';
import { checkTimeBudget, startTimeBudget, TimeBudgetExceededError } from '../kernel/time-budget.ts';
import { type CompactionOptions, makeCompaction } from './compaction.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import { buildSegment, type DeleteMarker, SEGMENT_FORMAT, type SegmentDocumentInput } from './index/segment.ts';
import {
  type IngestJob,
  type KnowledgeFile,
  type KnowledgeFileStore,
  type KnowledgeIndexStore,
  type KnowledgeObjectStore,
  knowledgeObjectKeys,
  newSegmentId,
} from './knowledge-files.ts';
import type { SegmentCache } from './segment-cache.ts';
import { detectLanguage, documentTerms } from './text/analyzer.ts';
import { type ChunkOptions, chunkText, DEFAULT_CHUNKING } from './text/chunker.ts';
import {
  type DocumentReader,
  extractDocumentText,
  type PdfPageReader,
  UnreadableDocumentError,
} from './text/extract.ts';

export interface IngestDeps {
  files: KnowledgeFileStore;
  index: KnowledgeIndexStore;
  objects: KnowledgeObjectStore;
  /** Opened segments and their pieces (a merge reads its inputs' texts and postings by range, not through it). */
  segments: SegmentCache;
  logger: Logger;
  readPdf?: PdfPageReader;
  /**
   * How a file's bytes become text (default {@link extractDocumentText} in this thread; the local runner reads HTML
   * and Markdown in a sandbox thread, functions/_wiring/untrusted-parsing.ts).
   */
  readText?: DocumentReader;
  embeddings?: EmbeddingsProvider;
  chunking?: ChunkOptions;
  clock?: () => Date;
  /** Texts per embeddings request (default 32). */
  embeddingBatchSize?: number;
  /** Time one file may take from bytes to excerpts (default 120 s); past it the file is `failed`, not retried. */
  fileBudgetMs?: number;
  /**
   * The same for a PDF (default `fileBudgetMs`): a PDF whose scanned pages are read by OCR needs longer (the ingest
   * function gives 480 s, a 100-page scan); the PDF reader's own limits bound the parsing.
   */
  pdfBudgetMs?: number;
  /**
   * Text files of one batch read and analysed at once (default 4): their reads overlap, their CPU work does not.
   * PDFs go one at a time, as before (OCR runs a PDF's pages in parallel already).
   */
  fileConcurrency?: number;
  /** Milliseconds clock for the time budget (default `Date.now`). */
  now?: () => number;
  compaction?: CompactionOptions;
}

/** What one file of a batch came to. */
type Outcome =
  | { kind: 'ready'; file: KnowledgeFile; doc: SegmentDocumentInput; settled: { bytes: number; ocrPages?: number } }
  | { kind: 'failed'; file: KnowledgeFile; reason: string };

/**
 * Ingestion of a bot's knowledge, for the ingest worker. For each batch of uploads to one bot:
 * 1. the newest upload of each name that is still `processing` (a newer upload or a delete wins over an older one);
 * 2. read its bytes and extract the text (PDF text layer or OCR, HTML without scripts and styles, Markdown without
 *    markup); split it into excerpts, detect its language, embed the excerpts when a model is configured; an
 *    unreadable file becomes a delete marker (an older version of it leaves search) and `failed` with the reason;
 * 3. write one segment with the batch's files and markers and list it on the bot item: from that one write the new
 *    versions are searchable and the old ones are not (work proportional to the batch, not to the bot's knowledge);
 * 4. mark the files `ready` (or `failed`);
 * 5. merge segments in the background when they have become many (./compaction.ts).
 * Transient failures throw (the queue retries); on the last attempt the files are marked `failed` instead, so no
 * file stays `processing` for ever. A merge failure never fails the batch.
 */
export function makeIngestKnowledge(deps: IngestDeps) {
  const clock = deps.clock ?? (() => new Date());
  const fileBudgetMs = deps.fileBudgetMs ?? 120_000;
  const budgetFor = (contentType: string) =>
    contentType === 'application/pdf' ? (deps.pdfBudgetMs ?? fileBudgetMs) : fileBudgetMs;
  const chunking = deps.chunking ?? DEFAULT_CHUNKING;
  const compaction = makeCompaction({ ...deps, options: deps.compaction });

  async function embed(excerpts: string[]): Promise<Float32Array[] | undefined> {
    if (!deps.embeddings) return undefined;
    const size = deps.embeddingBatchSize ?? 32;
    const out: Float32Array[] = [];
    for (let i = 0; i < excerpts.length; i += size) {
      out.push(...(await deps.embeddings.embed(excerpts.slice(i, i + size), 'document', AbortSignal.timeout(60_000))));
    }
    return out;
  }

  /** One file from bytes to excerpts; unreadable (or over its time budget) is an outcome, anything else throws. */
  async function analyse(file: KnowledgeFile): Promise<Outcome> {
    try {
      const bytes = await deps.objects.get(file.objectKey);
      const budget = startTimeBudget(budgetFor(file.contentType), deps.now);
      const { text, ocrPages } = await (deps.readText ?? extractDocumentText)(bytes, file.contentType, {
        charset: file.charset,
        readPdf: deps.readPdf,
        budget,
      });
      const excerpts = chunkText(text, chunking);
      if (!excerpts.length) throw new UnreadableDocumentError('The file has no readable text.');
      checkTimeBudget(budget);
      const language = detectLanguage(text);
      const vectors = await embed(excerpts);
      return {
        kind: 'ready',
        file,
        doc: {
          fileKey: file.fileKey,
          fileName: file.fileName,
          generation: file.generation,
          language,
          excerpts,
          terms: excerpts.map((e) => documentTerms(e, language)),
          ...(vectors ? { vectors } : {}),
        },
        settled: { bytes: bytes.length, ...(ocrPages !== undefined ? { ocrPages } : {}) },
      };
    } catch (error) {
      if (error instanceof UnreadableDocumentError || error instanceof TimeBudgetExceededError) {
        deps.logger.info('knowledge file unreadable', {
          botId: file.botId,
          fileKey: file.fileKey,
          reason: error.message,
        });
        return { kind: 'failed', file, reason: error.message };
      }
      throw error;
    }
  }

  /** Writes the batch's segment and lists it; false when the bot is gone. */
  async function publish(botId: string, docs: SegmentDocumentInput[], markers: DeleteMarker[]): Promise<boolean> {
    const at = clock();
    const id = newSegmentId(at);
    const key = knowledgeObjectKeys.segment(botId, id);
    const bytes = buildSegment(docs, {
      markers,
      builtAt: at,
      ...(deps.embeddings ? { embeddingModel: deps.embeddings.model } : {}),
    });
    // A batch of large files makes a segment past one request's size: streamed in parts.
    await deps.objects.putStream(key, [bytes], 'application/octet-stream');
    const listed = await deps.index.addSegment(botId, {
      id,
      key,
      docs: docs.length,
      excerpts: docs.reduce((n, d) => n + d.excerpts.length, 0),
      markers: markers.length,
      bytes: bytes.length,
      format: SEGMENT_FORMAT,
    });
    if (!listed) await deps.objects.delete([key]).catch(() => undefined);
    else
      deps.logger.info('knowledge segment published', { botId, segment: id, docs: docs.length, bytes: bytes.length });
    return listed;
  }

  return async function ingestBot(botId: string, jobs: IngestJob[], options: { finalAttempt: boolean }): Promise<void> {
    const latest = new Map<string, string>();
    for (const job of jobs) {
      if (job.kind !== 'file') continue;
      const fileName = job.fileName ?? (await deps.files.nameOf(botId, job.fileKey));
      if (fileName === undefined) continue;
      const seen = latest.get(fileName);
      if (!seen || seen < job.generation) latest.set(fileName, job.generation);
    }
    const wanted = [...latest];
    const records = await mapLimited(wanted, 10, ([fileName]) => deps.files.get(botId, fileName));
    // Replaced, deleted or already settled (a job delivered twice) are skipped.
    const pending = records.filter(
      (file, i): file is KnowledgeFile => !!file && file.generation === wanted[i]![1] && file.status === 'processing',
    );
    let outcomes: Outcome[];
    try {
      // Text files overlap their reads; PDFs go one at a time (OCR already runs pages in parallel).
      const pdfs = pending.filter((f) => f.contentType === 'application/pdf');
      const others = pending.filter((f) => f.contentType !== 'application/pdf');
      outcomes = [
        ...(await mapLimited(others, deps.fileConcurrency ?? 4, analyse)),
        ...(await mapLimited(pdfs, 1, analyse)),
      ];
    } catch (error) {
      if (!options.finalAttempt) throw error;
      deps.logger.error('knowledge files failed on their last attempt', { botId, cause: String(error) });
      outcomes = await mapLimited(pending, 1, (file) =>
        analyse(file).catch(() => ({
          kind: 'failed' as const,
          file,
          reason: 'The file could not be processed after several attempts; upload it again.',
        })),
      );
    }

    if (outcomes.length) {
      const docs = outcomes.flatMap((o) => (o.kind === 'ready' ? [o.doc] : []));
      // A failed upload takes any older version of its file out of search, as the listing will say `failed`.
      const markers = outcomes.flatMap((o) =>
        o.kind === 'failed' ? [{ fileKey: o.file.fileKey, generation: o.file.generation, at: clock().getTime() }] : [],
      );
      let listed: boolean;
      try {
        listed = await publish(botId, docs, markers);
      } catch (error) {
        if (!options.finalAttempt) throw error;
        deps.logger.error('knowledge segment failed on its last attempt', { botId, cause: String(error) });
        for (const o of outcomes)
          await deps.files.markFailed(
            botId,
            o.file.fileName,
            o.file.generation,
            'The search index could not be updated after several attempts; upload the file again.',
            clock(),
          );
        return;
      }
      if (!listed) return; // the bot was deleted
      for (const o of outcomes) {
        if (o.kind === 'ready')
          await deps.files.markReady(
            botId,
            o.file.fileName,
            o.file.generation,
            o.doc.excerpts.length,
            clock(),
            o.settled,
          );
        else await deps.files.markFailed(botId, o.file.fileName, o.file.generation, o.reason, clock());
      }
    }
    const mergeAsked = jobs.some((j) => j.kind !== 'file');
    if (outcomes.length || mergeAsked)
      await compaction(botId).catch((error) =>
        deps.logger.warn('knowledge segments not merged; the next batch tries again', { botId, cause: String(error) }),
      );
  };
}

export type IngestKnowledge = ReturnType<typeof makeIngestKnowledge>;

/** `fn` over `items`, at most `limit` at once, results in order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
