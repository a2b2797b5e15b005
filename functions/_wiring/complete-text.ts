import { readOptionalSecret } from '#shared/kernel/aws/secrets.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { DynamoCreditLedger, meteredCreditLedger } from '#shared/credits/index.ts';
import type { DynamoTable } from '#shared/kernel/aws/dynamo-table.ts';
import { modelRouterFromConfig } from '#shared/models/adapters/model-router-from-config.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import type { Config } from '#shared/kernel/config.ts';
import type { Logger } from '#shared/kernel/logger.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { knowledgeSearchFromConfig } from './knowledge.ts';
import { meteredModelRouter } from './metered.ts';

/**
 * The generation use case as `POST /api/v1/ai/completion` and `POST /api/v1/ai/chat/completions` both run it: the
 * project's bots, their knowledge (the same search and index cache as `POST /api/v1/ai/search`; S3 is loaded on the
 * first bot with knowledge files), the credit ledger and the model providers, metered. One assembly, so the two
 * routes cannot drift apart in what they charge, search or call.
 */
export async function completeTextFromConfig(
  cfg: Config,
  deps: { table: DynamoTable; logger: Logger; metrics: Metrics },
): Promise<ReturnType<typeof makeCompleteText>> {
  const { table, logger, metrics } = deps;
  const openAiApiKey = await readOptionalSecret(cfg.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
    logger.warn('model API key secret unreadable; OpenAI-compatible calls will go without a key', {
      cause: String(cause),
    }),
  );
  const bots = new DynamoBotStore(table);
  return makeCompleteText({
    bots,
    knowledge: knowledgeSearchFromConfig(cfg, { bots, logger }),
    credits: meteredCreditLedger(new DynamoCreditLedger(table), metrics),
    models: meteredModelRouter(modelRouterFromConfig(cfg, openAiApiKey === undefined ? {} : { openAiApiKey }), metrics),
    maxOutputTokens: cfg.BOT_MAX_OUTPUT_TOKENS,
    log: logger,
  });
}
