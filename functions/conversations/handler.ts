import { config } from '#shared/kernel/config.ts';
import {
  ChannelNotFoundError,
  DynamoChannelStore,
  DynamoConversationStore,
  makeConversationQueries,
} from '#shared/messaging/index.ts';
import { customTokenFunction, wireCustomTokenAuth } from '#shared/auth/index.ts';
import { validate } from '#shared/http/middleware.ts';
import { pageQuery } from '#shared/http/pagination.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { mediaStoreFromConfig } from '#functions/_wiring/media.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('conversations');
const table = dynamoTable(cfg);
const secretBox = await secretBoxFromConfig(cfg);
const channels = new DynamoChannelStore(table, secretBox);
const conversations = makeConversationQueries({
  conversations: new DynamoConversationStore(table, secretBox),
  media: mediaStoreFromConfig(cfg),
  // Read-only routes: nothing here publishes.
  events: {
    prepare: () => Promise.reject(new Error('no events from the conversation routes')),
    send: () => Promise.reject(new Error('no events from the conversation routes')),
  },
  onBackgroundError: (what, cause) => logger.error(`${what} failed`, { cause: String(cause) }),
});

/**
 * `GET /api/integration/conversations/{contact}` (the WhatsApp window and whether the contact opted out) and
 * `GET /api/integration/conversations/{contact}/messages?limit&cursor` (the conversation's messages, newest first),
 * for the custom token's channel. 401 ERR_NO_PERMISSION as on send; 404 CHANNEL_NOT_FOUND when the
 * token's channel was deleted; 400 VALIDATION_ERROR for a contact the channel cannot write, or a bad cursor.
 */
export const handler = customTokenFunction({
  logger,
  ...wireCustomTokenAuth({ table }),
}).handler(async (event) => {
  const channel = await channels.get(event.auth.projectId, event.auth.channelId);
  if (!channel) throw new ChannelNotFoundError(event.auth.channelId, 'The channel of this token was deleted.');
  const contact = event.pathParameters?.contact ?? '';
  if (event.resource?.endsWith('/messages')) {
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) raw[k] = v;
    return json(200, await conversations.messages(channel, contact, validate(pageQuery, raw)));
  }
  return json(200, await conversations.conversation(channel, contact));
});
