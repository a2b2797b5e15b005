import type { CustomTokenGrant } from '../../auth/index.ts';
import { newId } from '../../kernel/ids.ts';
import { ValidationError } from '../../kernel/domain-error.ts';
import type { ErrorDetail } from '../../kernel/validation/issues.ts';
import type { Channel } from '../channel.ts';
import { type ConversationStore, conversationIdOf, normaliseContact } from '../conversation.ts';
import { ChannelNotFoundError } from '../errors.ts';
import { validateSendPayload, type SendPayload } from '../payloads.ts';
import type { DeferredMessage, DeferredStatus } from './deferred.ts';
import { parseSendAt } from './send-at.ts';

export interface ScheduleSendDeps {
  conversations: Pick<ConversationStore, 'lookupForSend'>;
  accept: (messages: readonly DeferredMessage[]) => Promise<void>;
  now?: () => Date;
}

export interface ScheduledResult {
  messageId: string;
  status: 'scheduled';
  sendAt: string;
}

/**
 * A send with `sendAt` (the send endpoint's body without it):
 * 1. the channel exists (404 CHANNEL_NOT_FOUND);
 * 2. `sendAt` is an RFC 3339 time with its offset, 60 s to 35 days ahead, and the payload fits the channel's type:
 *    both checked at once (400 VALIDATION_ERROR, every problem in `details`);
 * 3. it is kept `scheduled` and due at `sendAt` (accept-deferred.ts). Nothing is charged and no recipient is checked
 *    now: at its time it runs as a send received then (suppressions, window, credits).
 */
export function makeScheduleSend(deps: ScheduleSendDeps) {
  const now = deps.now ?? (() => new Date());
  return async function scheduleSend(
    grant: CustomTokenGrant,
    body: unknown,
    sendAt: unknown,
  ): Promise<ScheduledResult> {
    const lookup = await deps.conversations.lookupForSend(grant.projectId, grant.channelId, {
      windowContacts: [],
      suppressionContacts: [],
      threadIds: [],
    });
    if (!lookup) throw new ChannelNotFoundError(grant.channelId, 'The channel of this token was deleted.');
    const at = now();
    const when = parseSendAt(sendAt, at);
    const validation = validateSendPayload(lookup.channel.type, body);
    const details: ErrorDetail[] = [...(when.ok ? [] : [when.detail]), ...(validation.ok ? [] : validation.details)];
    if (!when.ok || !validation.ok)
      throw new ValidationError(`The scheduled send is invalid for a ${lookup.channel.type} channel.`, details);
    const message = deferredMessageOf(grant, lookup.channel, validation.value, body, 'scheduled', at, {
      sendAt: when.sendAt,
    });
    await deps.accept([message]);
    return { messageId: message.messageId, status: 'scheduled', sendAt: when.sendAt };
  };
}

/** A deferred message of the token's channel, from a body that passed the channel's payload schema. */
export function deferredMessageOf(
  grant: CustomTokenGrant,
  channel: Channel,
  payload: SendPayload,
  body: unknown,
  status: DeferredStatus,
  at: Date,
  extra: { sendAt?: string; batchId?: string },
): DeferredMessage {
  const to = recipientOf(payload);
  const first = Array.isArray(to) ? to[0]! : to;
  const contact = normaliseContact(channel.type, first) ?? first;
  return {
    messageId: newId('msg'),
    projectId: grant.projectId,
    channelId: grant.channelId,
    integrationId: grant.integrationId,
    channelType: channel.type,
    companyId: channel.companyId,
    channelAddress: channel.address,
    provider: channel.provider.kind,
    status,
    conversationId: conversationIdOf(channel.channelId, contact),
    contact,
    to,
    body: body as Record<string, unknown>,
    createdAt: at.toISOString(),
    ...(extra.sendAt ? { sendAt: extra.sendAt } : {}),
    ...(extra.batchId ? { batchId: extra.batchId } : {}),
  };
}

function recipientOf(message: SendPayload): string | string[] {
  switch (message.type) {
    case 'whatsapp':
      return message.payload.number;
    case 'email':
      return message.payload.to;
    case 'sms':
      return message.payload.to;
  }
}
