import type { CustomTokenGrant } from '../auth/index.ts';
import { MessageNotFoundError } from './errors.ts';
import type { MessageStatusRecord, MessageStatusStore } from './message-status.ts';

/**
 * A message's status and history for the custom token's channel: one GetItem by message id; a message of another
 * channel is answered exactly like an unknown one, so ids of other channels cannot be probed.
 */
export function makeGetMessage(deps: { messages: Pick<MessageStatusStore, 'get'> }) {
  return async function getMessage(grant: CustomTokenGrant, messageId: string): Promise<MessageStatusRecord> {
    const record = /^msg_[a-z0-9]{1,64}$/.test(messageId) ? await deps.messages.get(messageId) : undefined;
    if (!record || record.projectId !== grant.projectId || record.channelId !== grant.channelId)
      throw new MessageNotFoundError(messageId);
    return record;
  };
}
