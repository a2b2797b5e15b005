import type { MeteredPlatform } from '../kernel/platform.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import type { OcrOptions, PdfOpener } from '../pdf/index.ts';
import { DynamoKnowledgeFileStore } from './adapters/dynamo-knowledge-file-store.ts';
import { DynamoKnowledgeIndexStore } from './adapters/dynamo-knowledge-index-store.ts';
import { ingestWorkerHandler } from './api/ingest-worker.ts';
import { makeAcceptArrival } from './arrivals.ts';
import { makeIngestKnowledge } from './ingest.ts';
import type { KnowledgeObjectStore, KnowledgeUploadInbox } from './knowledge-files.ts';
import { makePdfPageReader, PDF_READ_BUDGET_MS } from './pdf-reader.ts';
import { SegmentCache } from './segment-cache.ts';
import type { DocumentReader } from './text/extract.ts';
import { knowledgeObjectsFromConfig } from './wiring.ts';

/** What the ingest worker's segment cache holds: merges stream their inputs by range, the views decide what they keep. */
const INGEST_CACHE_BYTES = 192 * 1024 * 1024;

/**
 * The `ingest` queue worker, built once per cold start; opened segments stay cached between batches. What it reads
 * files with comes from the root: `objectsOn` and `inboxOn` give the knowledge bucket's stores (S3 loaded on first
 * use), `openPdf` and `readText` parse in-process on AWS and in a sandbox thread locally (UNTRUSTED_PARSING), `ocr`
 * is the extract route's (same engine choice, DPI and per-page time limit: the OCR_* settings).
 */
export function wireIngestWorker(
  platform: MeteredPlatform,
  deps: {
    objectsOn: (bucket: string) => KnowledgeObjectStore;
    inboxOn: (bucket: string) => KnowledgeUploadInbox;
    ocr: OcrOptions | undefined;
    openPdf: PdfOpener;
    readText: DocumentReader;
    embeddings: EmbeddingsProvider | undefined;
  },
) {
  const { cfg, logger, metrics, table } = platform;
  const files = new DynamoKnowledgeFileStore(table);
  const objects = knowledgeObjectsFromConfig(cfg, deps.objectsOn);
  const acceptArrival = cfg.BUCKET_KNOWLEDGE
    ? makeAcceptArrival({ files, objects, inbox: deps.inboxOn(cfg.BUCKET_KNOWLEDGE), logger })
    : undefined;
  const ingest = makeIngestKnowledge({
    files,
    index: new DynamoKnowledgeIndexStore(table),
    objects,
    segments: new SegmentCache(objects, { memoryBytes: INGEST_CACHE_BYTES, logger, metrics }),
    readPdf: makePdfPageReader(deps.ocr, PDF_READ_BUDGET_MS, deps.openPdf),
    readText: deps.readText,
    // Text files keep the default 120 s; a PDF may be a scan read page by page by OCR (sized for 100 pages).
    pdfBudgetMs: PDF_READ_BUDGET_MS,
    embeddings: deps.embeddings,
    logger,
  });
  return ingestWorkerHandler(platform, { ingest, acceptArrival });
}
