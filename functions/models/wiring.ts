import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { config } from '#shared/config/config.ts';
import { botsApiAuthFromConfig } from '#shared/http/bots-api-deps.ts';
import { createLogger } from '#shared/logging/logger.ts';

/** Everything `GET /api/v1/ai/models` touches, built once per cold start: the Bots API auth and the bot store. */
const cfg = config();
export const logger = createLogger('models');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
export const botsApiAuth = botsApiAuthFromConfig(cfg, table, logger);
export const bots = new DynamoBotStore(table);
