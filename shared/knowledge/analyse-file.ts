import { checkTimeBudget, startTimeBudget, TimeBudgetExceededError } from '../kernel/time-budget.ts';
import type { KnowledgeFile } from './knowledge-files.ts';
import { detectLanguage, documentTerms } from './text/analyzer.ts';
import { chunkText, DEFAULT_CHUNKING } from './text/chunker.ts';
import { extractDocumentText, UnreadableDocumentError } from './text/extract.ts';

import type { IngestDeps, Outcome } from './ingest-deps.ts';

/**
 * One file from bytes to excerpts (text extracted within the file's time budget, excerpts, language, terms, vectors
 * when a model is configured); unreadable (or over its time budget) is an outcome, anything else throws.
 */
export function makeAnalyseFile(deps: IngestDeps) {
  const fileBudgetMs = deps.fileBudgetMs ?? 120_000;
  const budgetFor = (contentType: string) =>
    contentType === 'application/pdf' ? (deps.pdfBudgetMs ?? fileBudgetMs) : fileBudgetMs;
  const chunking = deps.chunking ?? DEFAULT_CHUNKING;

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
  return async function analyse(file: KnowledgeFile): Promise<Outcome> {
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
  };
}
