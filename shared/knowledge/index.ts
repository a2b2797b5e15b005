/** Knowledge: a bot's files, their ingestion into a searchable index, and search. */
export {
  type AcceptArrival,
  type ArrivalDeps,
  type ArrivedObject,
  makeAcceptArrival,
  objectsCreatedIn,
} from './arrivals.ts';
export {
  EMBEDDING_INPUTS_PER_CREDIT,
  EmbeddingFailedError,
  type EmbedTexts,
  type EmbedTextsInput,
  type EmbedTextsOutput,
  makeEmbedTexts,
} from './embed-texts.ts';
export { compileFileFilters, compileFilePattern } from './file-pattern.ts';
export { type CompactionDeps, type CompactionOptions, makeCompaction } from './compaction.ts';
export {
  BM25_B,
  BM25_K1,
  KnowledgeView,
  type LoadedSegment,
  newestMarkers,
  type RankingOptions,
  type ScoredExcerpt,
  topExcerpts,
  type ViewDoc,
} from './index/knowledge-view.ts';
export {
  buildSegment,
  type DeleteMarker,
  openSegment,
  SEGMENT_FORMAT,
  type SegmentDoc,
  type SegmentDocumentInput,
  SegmentFormatError,
  segmentFromBytes,
  type SegmentOptions,
  type SegmentReader,
} from './index/segment.ts';
export { mergeSegments } from './index/segment-merge.ts';
export { type IngestDeps, type IngestKnowledge, makeIngestKnowledge } from './ingest.ts';
export {
  fileKeyOf,
  fileNameProblem,
  type IndexState,
  type IngestJob,
  type IngestQueue,
  KNOWLEDGE_CONTENT_TYPES,
  KNOWLEDGE_MAX_BYTES,
  type KnowledgeContentType,
  type KnowledgeFile,
  type KnowledgeFileStatus,
  type KnowledgeFileStore,
  type KnowledgeIndexStore,
  knowledgeObjectKeys,
  type KnowledgeObjectStore,
  type KnowledgeUploadInbox,
  newGeneration,
  newSegmentId,
  type Page,
  parseIncomingKey,
  type StartUploadOutcome,
} from './knowledge-files.ts';
export type { FileFilters, KnowledgeExcerpt, KnowledgeSearch, KnowledgeSearchRequest } from './knowledge-search.ts';
export {
  type KnowledgeManageDeps,
  type KnowledgeManagement,
  makeKnowledgeManagement,
  parseContentType,
  UnsupportedMediaTypeError,
  UPLOAD_URL_SECONDS,
  UploadTooLargeError,
} from './manage.ts';
export { makePdfPageReader, PDF_READ_BUDGET_MS } from './pdf-reader.ts';
export { fuseRankings, type KnowledgeSearchDeps, makeKnowledgeSearch } from './search.ts';
export { PieceCache, type PieceCacheOptions } from './piece-cache.ts';
export { SegmentCache, type SegmentCacheOptions } from './segment-cache.ts';
export {
  detectLanguage,
  documentTerms,
  foldAccents,
  type Language,
  type QueryTerm,
  queryTermGroups,
  queryTerms,
  words,
} from './text/analyzer.ts';
export { type ChunkOptions, chunkText, DEFAULT_CHUNKING, normalizeText } from './text/chunker.ts';
export {
  decodeText,
  type DocumentText,
  extractDocumentText,
  type PdfPageReader,
  type PdfText,
  UnreadableDocumentError,
} from './text/extract.ts';
export { htmlToText } from './text/html.ts';
export { MARKDOWN_MAX_LINE_CHARS, markdownToText } from './text/markdown.ts';
