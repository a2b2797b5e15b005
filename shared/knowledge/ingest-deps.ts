import type { Logger } from '../kernel/logger.ts';
import type { CompactionOptions } from './compaction.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import type { SegmentDocumentInput } from './index/segment.ts';
import type {
  KnowledgeFile,
  KnowledgeFileStore,
  KnowledgeIndexStore,
  KnowledgeObjectStore,
} from './knowledge-files.ts';
import type { SegmentCache } from './segment-cache.ts';
import type { ChunkOptions } from './text/chunker.ts';
import { type DocumentReader, extractDocumentText, type PdfPageReader } from './text/extract.ts';

/** The ports and options of knowledge ingestion (./ingest.ts and the steps it runs: ./analyse-file.ts, ./publish-segment.ts). */
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
export type Outcome =
  | { kind: 'ready'; file: KnowledgeFile; doc: SegmentDocumentInput; settled: { bytes: number; ocrPages?: number } }
  | { kind: 'failed'; file: KnowledgeFile; reason: string };
