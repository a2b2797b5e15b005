import { type CustomTokenAuthPorts, customTokenFunction } from '../../auth/index.ts';
import { validate } from '../../http/middleware.ts';
import { pageQuery } from '../../http/pagination.ts';
import { json } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ChannelStore } from '../channel.ts';
import type { makeConversationQueries } from '../conversations.ts';
import { ChannelNotFoundError } from '../errors.ts';

/**
 * `GET /api/integration/conversations/{contact}` (the WhatsApp window and whether the contact opted out) and
 * `GET /api/integration/conversations/{contact}/messages?limit&cursor` (the conversation's messages, newest first),
 * for the custom token's channel. 401 ERR_NO_PERMISSION as on send; 404 CHANNEL_NOT_FOUND when the token's channel
 * was deleted; 400 VALIDATION_ERROR for a contact the channel cannot write, or a bad cursor.
 */
export function publicConversationsHandler(
  observed: { logger: Logger },
  deps: {
    auth: CustomTokenAuthPorts;
    channels: Pick<ChannelStore, 'get'>;
    conversations: ReturnType<typeof makeConversationQueries>;
  },
) {
  const { channels, conversations } = deps;
  return customTokenFunction({ logger: observed.logger, ...deps.auth }).handler(async (event) => {
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
}
