import { config } from '#shared/kernel/config.ts';
import { DynamoMessageStatusStore } from '#shared/messaging/adapters/dynamo-message-status-store.ts';
import { DynamoTokenStore } from '#shared/auth/adapters/dynamo-token-store.ts';
import { customTokenFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { makeGetMessage } from '#shared/messaging/get-message.ts';
import { messageStatusView } from '#shared/messaging/message-status.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { customTokenLimitsFromConfig } from '#functions/_wiring/limits.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('message-status');
const table = dynamoTable(cfg);
const getMessage = makeGetMessage({ messages: new DynamoMessageStatusStore(table) });
// Media URLs are signed afresh on every read (valid 7 days from it): the function may read `media/`.
const media = mediaStoreFromConfig(cfg);

/**
 * `GET /api/integration/messages/{messageId}`: a message's status and history, its conversation, what was said and
 * its media (URLs re-signed, valid 7 days from this read), for the custom token's channel.
 * 401 ERR_NO_PERMISSION as on send; 404 MESSAGE_NOT_FOUND for an unknown id or another channel's message.
 */
export const handler = customTokenFunction({
  logger,
  tokens: new DynamoTokenStore(table),
  limits: customTokenLimitsFromConfig(cfg, table, { sends: false }),
}).handler(async (event) =>
  json(
    200,
    await messageStatusView(await getMessage(event.auth, event.pathParameters?.messageId ?? ''), media, new Date()),
  ),
);
