import { DynamoBotStore } from '#shared/bots/index.ts';
import type { CompletionPorts } from '#shared/completion/index.ts';
import { DynamoCreditLedger, meteredCreditLedger } from '#shared/credits/index.ts';
import type { MeteredPlatform } from '#shared/kernel/platform.ts';
import { s3ObjectStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-object-store.ts';
import { embeddingsFromSettings, modelRouterFromSettings } from '#shared/model-providers/index.ts';
import { knowledgeObjectsFromConfig, knowledgeSearchFromConfig } from '#shared/knowledge/index.ts';

/**
 * What `POST /api/v1/ai/completion`, `/chat/completions` and `/responses` run on: the project's bots, their
 * knowledge (the same search and index cache as `POST /api/v1/ai/search`; S3 is loaded on the first bot with
 * knowledge files), the credit ledger and the deployment's models, metered. Once per cold start.
 */
export async function completionPorts(platform: MeteredPlatform): Promise<CompletionPorts> {
  const { cfg, logger, metrics, table } = platform;
  const bots = new DynamoBotStore(table);
  return {
    bots,
    knowledge: knowledgeSearchFromConfig(cfg, {
      bots,
      logger,
      metrics,
      objects: knowledgeObjectsFromConfig(cfg, (bucket) => s3ObjectStoreOnFirstUse(cfg, bucket)),
      embeddings: embeddingsFromSettings(cfg),
    }),
    credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
    models: await modelRouterFromSettings(platform),
  };
}
