import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoMessageStatusStore } from '#shared/adapters/dynamodb/message-status-store.ts';
import { DynamoTokenStore } from '#shared/adapters/dynamodb/token-store.ts';
import { makeAuthenticateCustomToken } from '#shared/auth/authenticate.ts';
import { config } from '#shared/config/config.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { makeGetMessage } from '#shared/messaging/get-message.ts';

/** Everything `GET /api/integration/messages/{messageId}` touches, built once per cold start. */
const cfg = config();
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };

export const logger = createLogger('message-status');
export const authenticate = makeAuthenticateCustomToken({ tokens: new DynamoTokenStore(table) });
export const getMessage = makeGetMessage({ messages: new DynamoMessageStatusStore(table) });
