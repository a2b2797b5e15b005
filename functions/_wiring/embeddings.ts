import { bedrockRuntimeClient } from '#shared/models/adapters/bedrock-model.ts';
import { BedrockTitanEmbeddings } from '#shared/knowledge/adapters/bedrock-titan-embeddings.ts';
import { OpenAiCompatibleEmbeddings } from '#shared/knowledge/adapters/openai-embeddings.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { EmbeddingsProvider } from '#shared/knowledge/embeddings.ts';

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
