import { bedrockRuntimeClient } from '#shared/models/adapters/bedrock-model.ts';
import { BedrockTitanEmbeddings } from '#shared/knowledge/adapters/bedrock-titan-embeddings.ts';
import { OpenAiCompatibleEmbeddings } from '#shared/knowledge/adapters/openai-embeddings.ts';
import { s3KnowledgeObjectStoreOnFirstUse } from '#shared/knowledge/adapters/lazy-s3-knowledge-stores.ts';
import type { BotStore } from '#shared/bots/bot.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { EmbeddingsProvider } from '#shared/knowledge/embeddings.ts';
import type { KnowledgeObjectStore } from '#shared/knowledge/knowledge-files.ts';
import type { KnowledgeSearch } from '#shared/knowledge/knowledge-search.ts';
import { makeKnowledgeSearch } from '#shared/knowledge/search.ts';
import { SegmentCache } from '#shared/knowledge/segment-cache.ts';

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
 * The embeddings model for hybrid search, when `EMBEDDINGS_PROVIDER` names one; undefined = lexical only.
 * Ingestion and search must agree on the model: an index built with another model (or none) is searched lexically.
 */
export function embeddingsFromConfig(cfg: Config): EmbeddingsProvider | undefined {
  if (cfg.EMBEDDINGS_PROVIDER === 'bedrock') {
    const client = bedrockRuntimeClient({ region: cfg.AWS_REGION, requestTimeoutMs: 30_000 });
    return new BedrockTitanEmbeddings(
      client,
      cfg.EMBEDDINGS_MODEL ?? 'amazon.titan-embed-text-v2:0',
      cfg.EMBEDDINGS_DIMENSIONS ?? 512,
    );
  }
  if (cfg.EMBEDDINGS_PROVIDER === 'openai') {
    const baseUrl = cfg.EMBEDDINGS_BASE_URL ?? cfg.OPENAI_BASE_URL;
    if (!baseUrl)
      throw new Error('Invalid configuration: EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL or OPENAI_BASE_URL');
    return new OpenAiCompatibleEmbeddings({
      baseUrl,
      apiKey: cfg.EMBEDDINGS_API_KEY ?? cfg.OPENAI_API_KEY,
      model: cfg.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
      ...(cfg.EMBEDDINGS_DIMENSIONS ? { dimensions: cfg.EMBEDDINGS_DIMENSIONS } : {}),
    });
  }
  return undefined;
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
    embeddings: embeddingsFromConfig(cfg),
  });
}
