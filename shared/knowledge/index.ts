/** Knowledge: a bot's files, their ingestion into a searchable index, and search. */
export { DynamoKnowledgeFileStore } from './adapters/dynamo-knowledge-file-store.ts';
export { DynamoKnowledgeIndexStore } from './adapters/dynamo-knowledge-index-store.ts';
export { HashedEmbeddings, hashedVector } from './adapters/hashed-embeddings.ts';
export { knowledgeRouteDocs, knowledgeRoutes } from './api/admin-routes.ts';
export {
  knowledgeFile,
  knowledgeFilePage,
  knowledgeUploadAccepted,
  knowledgeUploadUrl,
  searchResult,
} from './api/schemas.ts';
export { searchDocs, searchRequest } from './api/search-request.ts';
export { makeCompaction } from './compaction.ts';
export { EMBEDDING_INPUTS_PER_CREDIT, type EmbedTexts, type EmbedTextsOutput, makeEmbedTexts } from './embed-texts.ts';
export { compileFilePattern } from './file-pattern.ts';
export { rankBm25, type ScoringSegment } from './index/bm25.ts';
export { KnowledgeView, type RankingOptions } from './index/knowledge-view.ts';
export { buildSegment, SEGMENT_FORMAT, type SegmentDocumentInput, segmentFromBytes } from './index/segment.ts';
export { makeWriteMergedSegment } from './write-merged-segment.ts';
export { makeIngestKnowledge } from './ingest.ts';
export {
  fileKeyOf,
  type IndexState,
  type IngestJob,
  type KnowledgeContentType,
  type KnowledgeFile,
  type KnowledgeFileStore,
  type KnowledgeIndexStore,
  knowledgeObjectKeys,
  type KnowledgeObjectStore,
  newGeneration,
  newSegmentId,
  type Page,
  type StartUploadOutcome,
} from './knowledge-files.ts';
export type { KnowledgeExcerpt, KnowledgeSearch, KnowledgeSearchRequest } from './knowledge-search.ts';
export {
  makeKnowledgeManagement,
  UnsupportedMediaTypeError,
  UploadTooLargeError,
} from './manage.ts';
export { makePdfPageReader } from './pdf-reader.ts';
export { fuseRankings, makeKnowledgeSearch } from './search.ts';
export { SegmentCache } from './segment-cache.ts';
export { detectLanguage, documentTerms, type Language, type QueryTerm } from './text/analyzer.ts';
export { chunkText, normalizeText } from './text/chunker.ts';
export { type DocumentReader, extractDocumentText, UnreadableDocumentError } from './text/extract.ts';
export { markdownToText } from './text/markdown.ts';
export {
  type KnowledgeAdmin,
  knowledgeObjectsFromConfig,
  knowledgeSearchFromConfig,
  wireKnowledgeAdmin,
} from './wiring.ts';
export { wireSearch } from './search-wiring.ts';
export { wireIngestWorker } from './ingest-wiring.ts';
