import { s3KnowledgeObjectStoreOnFirstUse } from '#shared/knowledge/adapters/lazy-s3-knowledge-stores.ts';
import type { BotStore } from '#shared/bots/index.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { KnowledgeObjectStore } from '#shared/knowledge/knowledge-files.ts';
import type { KnowledgeSearch } from '#shared/knowledge/knowledge-search.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache, type SegmentCacheOptions } from '#shared/knowledge/segment-cache.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
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
  return {
    put: missing,
    putStream: missing,
    get: missing,
    getRange: missing,
    getTail: missing,
    delete: missing,
    deletePrefix: missing,
  };
}

/**
 * Bounds of a function's knowledge caches (segment tails, views, postings and text pieces): a tenth of the function's
 * memory, 64 to 100 MB (100 MB where the memory is not known: the local runner), and 384 MB of its /tmp (Lambda
 * gives 512 MB by default), whatever the bot's size: the rest is the runtime and one query's working set. Not more
 * than 100 MB: on a bot of 1 GB of text in 10 segments, 176 MB of cache (search's tenth) held the process at 470 MB
 * where 102 MB held it at 390, and bought nothing measurable (warm queries read nothing from the bucket with either,
 * new queries the same 26 pieces); pieces pushed out come back from /tmp, not from S3.
 */
export function knowledgeCacheFromConfig(cfg: Config): SegmentCacheOptions {
  const mb = cfg.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
  const cacheMb = mb ? Math.min(100, Math.max(64, Math.floor(mb / 10))) : 100;
  return { memoryBytes: cacheMb * 1024 * 1024, diskBytes: 384 * 1024 * 1024 };
}

/**
 * The `KnowledgeSearch` over the function's bot store and the knowledge bucket, with its segment cache: build it
 * once per cold start (module scope). What the search endpoint and the completion, chat and responses endpoints use:
 * one bounded path, so a bot's size changes what a query reads, not what a function holds.
 */
export function knowledgeSearchFromConfig(
  cfg: Config,
  deps: { bots: BotStore; logger: Logger; metrics?: Metrics; objects?: KnowledgeObjectStore },
): KnowledgeSearch {
  return makeKnowledgeSearch({
    bots: deps.bots,
    segments: new SegmentCache(deps.objects ?? knowledgeObjectsFromConfig(cfg), {
      ...knowledgeCacheFromConfig(cfg),
      logger: deps.logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    }),
    logger: deps.logger,
    embeddings: embeddingsFromSettings(cfg),
  });
}
