import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { readOptionalSecret } from '#shared/adapters/aws/secrets.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { DynamoCreditLedger } from '#shared/adapters/dynamodb/credit-ledger.ts';
import { modelRouterFromConfig } from '#shared/adapters/models/model-router.ts';
import { makeCompleteText } from '#shared/completion/complete-text.ts';
import { config } from '#shared/config/config.ts';
import { botsApiAuthFromConfig } from '#shared/http/bots-api-deps.ts';
import { knowledgeSearchFromConfig } from '#shared/knowledge/from-config.ts';
import { createLogger } from '#shared/logging/logger.ts';

/**
 * Everything `POST /api/v1/ai/chat/completions` touches, built once per cold start: the same auth, rate limit,
 * credit ledger, bots, knowledge search and model providers as `POST /api/v1/ai/completion`.
 */
const cfg = config();
export const logger = createLogger('chat-completions');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
const openAiApiKey = await readOptionalSecret(cfg.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
  logger.warn('model API key secret unreadable; OpenAI-compatible calls will go without a key', {
    cause: String(cause),
  }),
);

export const botsApiAuth = botsApiAuthFromConfig(cfg, table, logger);

export const completeText = makeCompleteText({
  bots: new DynamoBotStore(table),
  // Only bots with knowledge files read the knowledge bucket: S3 is loaded on the first of them.
  knowledge: knowledgeSearchFromConfig(cfg, table, logger),
  credits: new DynamoCreditLedger(table),
  models: modelRouterFromConfig(cfg, openAiApiKey === undefined ? {} : { openAiApiKey }),
  log: logger,
});
