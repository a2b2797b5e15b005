import type { BotStore } from '../bots/index.ts';
import type { MeteredPlatform } from '../kernel/platform.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import { searchRoute } from './api/search-route.ts';
import type { KnowledgeObjectStore } from './knowledge-files.ts';
import { knowledgeObjectsFromConfig, knowledgeSearchFromConfig } from './wiring.ts';

/**
 * `POST /api/v1/ai/search`, built once per cold start; the index cache lives as long as the instance: its handler,
 * and the bot read it starts beside the rate limit (botsApiFunction's `beside`). `objectsOn`
 * gives the knowledge bucket's store: every search reads an index, so the root builds it on an S3 client loaded with
 * the function, not on first use. The bots and the embeddings model come from the root.
 */
export function wireSearch(
  platform: MeteredPlatform,
  deps: {
    bots: BotStore;
    objectsOn: (bucket: string) => KnowledgeObjectStore;
    embeddings: EmbeddingsProvider | undefined;
  },
) {
  const { cfg, logger, metrics } = platform;
  const knowledge = knowledgeSearchFromConfig(cfg, {
    bots: deps.bots,
    logger,
    metrics,
    objects: knowledgeObjectsFromConfig(cfg, deps.objectsOn),
    embeddings: deps.embeddings,
  });
  return searchRoute({ bots: deps.bots, knowledge });
}
