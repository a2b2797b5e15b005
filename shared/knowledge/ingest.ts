import type { Logger } from '../kernel/logger.ts';
import type { EmbeddingsProvider } from './embeddings.ts';
import { buildLexicalIndex, type IndexDocumentInput } from './index/lexical-index.ts';
import {
  knowledgeObjectKeys,
  type IngestJob,
  type KnowledgeFileStore,
  type KnowledgeObjectStore,
} from './knowledge-files.ts';
import { detectLanguage, documentTerms, type Language } from './text/analyzer.ts';
import { checkTimeBudget, startTimeBudget, TimeBudgetExceededError } from '../kernel/time-budget.ts';
import { chunkText, DEFAULT_CHUNKING, type ChunkOptions } from './text/chunker.ts';
import {
  type DocumentReader,
  extractDocumentText,
  UnreadableDocumentError,
  type PdfPageReader,
} from './text/extract.ts';

/** A file's excerpts as stored next to the upload (`bots/<botId>/excerpts/<generation>.json`). */
interface StoredExcerpts {
  fileName: string;
  language: Language;
  excerpts: string[];
  embeddingModel?: string;
  /** Float32 vectors, concatenated, base64. */
  vectors?: string;
}

interface AnalyzedFile extends IndexDocumentInput {
  terms: string[][];
  chars: number;
  embeddingModel?: string;
}

export interface IngestDeps {
  files: KnowledgeFileStore;
  objects: KnowledgeObjectStore;
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
  /** Analysed files kept in memory between rebuilds, in characters of text (default 64 M). */
  cacheChars?: number;
  /** Publish attempts when concurrent rebuilds of the same bot conflict (default 6). */
  maxPublishAttempts?: number;
  /** Texts per embeddings request (default 32). */
  embeddingBatchSize?: number;
  /** Time one file may take from bytes to excerpts (default 120 s); past it the file is `failed`, not retried. */
  fileBudgetMs?: number;
  /**
   * The same for a PDF (default `fileBudgetMs`): a PDF whose scanned pages are read by OCR needs longer (the ingest
   * function gives 480 s, a 100-page scan); the PDF reader's own limits bound the parsing.
   */
  pdfBudgetMs?: number;
  /** Milliseconds clock for the time budget (default `Date.now`). */
  now?: () => number;
}

/**
 * Ingestion of a bot's knowledge, for the ingest worker. For each new upload:
 * 1. skip it if a newer upload or a delete replaced it; 2. read its bytes and extract the text (PDF text layer,
 * HTML without scripts and styles, Markdown without markup); an unreadable file is marked `failed` with the reason;
 * 3. split the text into excerpts, detect its language, embed the excerpts when a model is configured, and store
 * the excerpts next to the upload; 4. rebuild the bot's index from every searchable file plus the new ones and
 * publish it (conditional on nothing having changed meanwhile, else rebuild again), which makes the new files
 * searchable; 5. mark them `ready`. Transient failures throw (the queue retries); on the last attempt the file is
 * marked `failed` instead, so no file stays `processing` for ever.
 */
export function makeIngestKnowledge(deps: IngestDeps) {
  const clock = deps.clock ?? (() => new Date());
  const fileBudgetMs = deps.fileBudgetMs ?? 120_000;
  const budgetFor = (contentType: string) =>
    contentType === 'application/pdf' ? (deps.pdfBudgetMs ?? fileBudgetMs) : fileBudgetMs;
  const chunking = deps.chunking ?? DEFAULT_CHUNKING;
  const cache = new AnalyzedCache(deps.cacheChars ?? 64_000_000);
  const maxAttempts = deps.maxPublishAttempts ?? 6;

  function analyze(
    fileName: string,
    generation: string,
    language: Language,
    excerpts: string[],
    vectors?: Float32Array[],
    embeddingModel?: string,
  ): AnalyzedFile {
    return {
      fileName,
      generation,
      language,
      excerpts,
      terms: excerpts.map((e) => documentTerms(e, language)),
      chars: excerpts.reduce((n, e) => n + e.length, 0),
      ...(vectors ? { vectors, embeddingModel } : {}),
    };
  }

  async function embed(excerpts: string[]): Promise<Float32Array[] | undefined> {
    if (!deps.embeddings) return undefined;
    const size = deps.embeddingBatchSize ?? 32;
    const out: Float32Array[] = [];
    for (let i = 0; i < excerpts.length; i += size) {
      out.push(...(await deps.embeddings.embed(excerpts.slice(i, i + size), 'document', AbortSignal.timeout(60_000))));
    }
    return out;
  }

  async function loadAnalyzed(botId: string, generation: string): Promise<AnalyzedFile | undefined> {
    const cached = cache.get(generation);
    if (cached) return cached;
    let stored: StoredExcerpts;
    try {
      stored = JSON.parse(
        Buffer.from(await deps.objects.get(knowledgeObjectKeys.excerpts(botId, generation))).toString('utf8'),
      ) as StoredExcerpts;
    } catch (error) {
      deps.logger.error('excerpts of a searchable file could not be read; left out of this index', {
        botId,
        generation,
        cause: String(error),
      });
      return undefined;
    }
    const vectors = stored.vectors
      ? splitVectors(Buffer.from(stored.vectors, 'base64'), stored.excerpts.length)
      : undefined;
    const analyzed = analyze(
      stored.fileName,
      generation,
      stored.language,
      stored.excerpts,
      vectors,
      stored.embeddingModel,
    );
    cache.set(generation, analyzed);
    return analyzed;
  }

  /** Builds and publishes the bot's index with `added` (fileKey → generation) made searchable. */
  async function publish(botId: string, added: Map<string, AnalyzedFile>): Promise<Map<string, AnalyzedFile>> {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const state = await deps.files.indexState(botId);
      if (!state) return new Map(); // the bot was deleted
      const stillCurrent = new Map([...added].filter(([fileKey, file]) => state.current[fileKey] === file.generation));
      const documents: IndexDocumentInput[] = [];
      for (const [fileKey, generation] of Object.entries(state.live)) {
        if (stillCurrent.has(fileKey)) continue;
        const doc = await loadAnalyzed(botId, generation);
        if (doc) documents.push(doc);
      }
      documents.push(...stillCurrent.values());
      const model = deps.embeddings?.model;
      const lexicalOnly = !model || documents.some((d) => !d.vectors || (d as AnalyzedFile).embeddingModel !== model);
      const bytes = buildLexicalIndex(lexicalOnly ? documents.map((d) => ({ ...d, vectors: undefined })) : documents, {
        builtAt: clock(),
        ...(lexicalOnly ? {} : { embeddingModel: model }),
      });
      const key = knowledgeObjectKeys.index(botId, state.version + 1);
      await deps.objects.put(key, bytes, 'application/octet-stream');
      const published = await deps.files.publishIndex(botId, {
        expectedVersion: state.version,
        key,
        previousKey: state.key,
        added: Object.fromEntries([...stillCurrent].map(([k, f]) => [k, f.generation])),
      });
      if (published) {
        // The index before the previous one: no search can still be loading it (they read the bot first).
        if (state.previousKey) await deps.objects.delete([state.previousKey]).catch(() => undefined);
        deps.logger.info('knowledge index published', {
          botId,
          version: state.version + 1,
          documents: documents.length,
          bytes: bytes.length,
        });
        return stillCurrent;
      }
      await deps.objects.delete([key]).catch(() => undefined);
    }
    throw new Error(`index of bot ${botId} could not be published: ${maxAttempts} conflicting rebuilds`);
  }

  return async function ingestBot(botId: string, jobs: IngestJob[], options: { finalAttempt: boolean }): Promise<void> {
    const latest = new Map<string, string>();
    for (const job of jobs) {
      if (job.kind !== 'file') continue;
      const seen = latest.get(job.fileKey);
      if (!seen || seen < job.generation) latest.set(job.fileKey, job.generation);
    }
    const added = new Map<string, AnalyzedFile>();
    /** What the listing shows of each file once ready: its size, and for PDFs how many pages came from OCR. */
    const settled = new Map<string, { bytes: number; ocrPages?: number }>();
    for (const [fileKey, generation] of latest) {
      const file = await deps.files.get(botId, fileKey);
      if (!file || file.generation !== generation || file.status !== 'processing') continue; // replaced, deleted or done
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
        const stored: StoredExcerpts = {
          fileName: file.fileName,
          language,
          excerpts,
          ...(vectors ? { embeddingModel: deps.embeddings!.model, vectors: joinVectors(vectors) } : {}),
        };
        await deps.objects.put(
          knowledgeObjectKeys.excerpts(botId, generation),
          Buffer.from(JSON.stringify(stored)),
          'application/json',
        );
        const analyzed = analyze(file.fileName, generation, language, excerpts, vectors, deps.embeddings?.model);
        cache.set(generation, analyzed);
        added.set(fileKey, analyzed);
        settled.set(fileKey, { bytes: bytes.length, ...(ocrPages !== undefined ? { ocrPages } : {}) });
      } catch (error) {
        if (error instanceof UnreadableDocumentError || error instanceof TimeBudgetExceededError) {
          deps.logger.info('knowledge file unreadable', { botId, fileKey, reason: error.message });
          await deps.files.markFailed(botId, fileKey, generation, error.message, clock());
          continue;
        }
        if (!options.finalAttempt) throw error;
        deps.logger.error('knowledge file failed on its last attempt', { botId, fileKey, cause: String(error) });
        await deps.files.markFailed(
          botId,
          fileKey,
          generation,
          'The file could not be processed after several attempts; upload it again.',
          clock(),
        );
      }
    }
    const rebuildAsked = jobs.some((j) => j.kind === 'rebuild');
    if (!added.size && !rebuildAsked) return;
    let published: Map<string, AnalyzedFile>;
    try {
      published = await publish(botId, added);
    } catch (error) {
      if (!options.finalAttempt) throw error;
      deps.logger.error('knowledge index failed on its last attempt', { botId, cause: String(error) });
      for (const [fileKey, file] of added) {
        await deps.files.markFailed(
          botId,
          fileKey,
          file.generation,
          'The search index could not be rebuilt after several attempts; upload the file again.',
          clock(),
        );
      }
      return;
    }
    for (const [fileKey, file] of published)
      await deps.files.markReady(botId, fileKey, file.generation, file.excerpts.length, clock(), settled.get(fileKey));
  };
}

export type IngestKnowledge = ReturnType<typeof makeIngestKnowledge>;

function joinVectors(vectors: Float32Array[]): string {
  const dims = vectors[0]?.length ?? 0;
  const all = new Float32Array(vectors.length * dims);
  for (const [i, v] of vectors.entries()) all.set(v, i * dims);
  return Buffer.from(all.buffer).toString('base64');
}

function splitVectors(bytes: Buffer, count: number): Float32Array[] {
  const all = new Float32Array(new Uint8Array(bytes).buffer);
  const dims = count ? all.length / count : 0;
  return Array.from({ length: count }, (_, i) => all.subarray(i * dims, (i + 1) * dims));
}

/** Least-recently-used analysed files, bounded by their text size. Generations never change, so entries never go stale. */
class AnalyzedCache {
  private readonly entries = new Map<string, AnalyzedFile>();
  private chars = 0;
  constructor(private readonly limit: number) {}
  get(generation: string): AnalyzedFile | undefined {
    const hit = this.entries.get(generation);
    if (hit) {
      this.entries.delete(generation);
      this.entries.set(generation, hit);
    }
    return hit;
  }
  set(generation: string, file: AnalyzedFile): void {
    if (this.entries.has(generation)) return;
    this.entries.set(generation, file);
    this.chars += file.chars;
    for (const [key, value] of this.entries) {
      if (this.chars <= this.limit || this.entries.size <= 1) break;
      this.entries.delete(key);
      this.chars -= value.chars;
    }
  }
}
