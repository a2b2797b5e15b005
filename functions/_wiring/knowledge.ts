import { s3KnowledgeObjectStoreOnFirstUse } from '#shared/knowledge/adapters/lazy-s3-knowledge-stores.ts';
import type { BotStore } from '#shared/bots/index.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { KnowledgeObjectStore } from '#shared/knowledge/knowledge-files.ts';
import type { KnowledgeSearch } from '#shared/knowledge/knowledge-search.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';

/**
 * The knowledge bucket as an object store, with the S3 client loaded on first use (`s3KnowledgeObjectStoreOnFirstUse`);
 * throws on use when the deployment has none.
 */
export function knowledgeObjectsFromConfig(cfg: Config): KnowledgeObjectStore {
  if (cfg.BUCKET_KNOWLEDGE) return s3KnowledgeObjectStoreOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE);
  const missing = async (): Promise<never> => {
    throw new Error('BUCKET_KNOWLEDGE is not configured');
  };
  return { put: missing, get: missing, delete: missing, deletePrefix: missing };
}

/**
 * The `KnowledgeSearch` over the function's bot store and the knowledge bucket, with its in-memory segment cache: build
 * it once per cold start (module scope). What the search endpoint and the completion endpoint use.
 */
export function knowledgeSearchFromConfig(
  cfg: Config,
  deps: { bots: BotStore; logger: Logger; objects?: KnowledgeObjectStore },
): KnowledgeSearch {
  return makeKnowledgeSearch({
    bots: deps.bots,
    segments: new SegmentCache(deps.objects ?? knowledgeObjectsFromConfig(cfg)),
    logger: deps.logger,
    embeddings: embeddingsFromSettings(cfg),
  });
}
