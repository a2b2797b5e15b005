import type { CustomTokenGrant } from '../auth/index.ts';
import type { EventPublisher } from '../events/index.ts';
import { newId } from '../kernel/ids.ts';
import type { Channel, ChannelStore } from './channel.ts';
import type { ConversationStore, SendLookup } from './conversation.ts';
import { ChannelNotFoundError, NoChannelCreditsError, ProviderFailedError } from './errors.ts';
import type { MessageLog } from './message.ts';
import type { MessageStatusStore } from './message-status.ts';
import {
  type DepartureGate,
  LateDepartureError,
  type MessageProviders,
  ProviderError,
  type ProviderReceipt,
} from './providers.ts';
import { fitPayload, makeRecordSend, RECORD_PAYLOAD_BYTES } from './record-send.ts';
import { checkSend, recipient, sendLookupKeys } from './send-checks.ts';

export interface SendMessageDeps {
  /** The channel and its contacts' conversation, suppression and thread items, in one read. */
  conversations: Pick<ConversationStore, 'lookupForSend'>;
  channels: Pick<ChannelStore, 'chargeCredit' | 'refundCredit'>;
  messages: Pick<MessageLog, 'record' | 'deliverToOutbox'>;
  /** Where the send's event mark is cleared once it is on the queue. */
  statuses: Pick<MessageStatusStore, 'clearEvent'>;
  providers: MessageProviders;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  /** Whole-send budget for the provider (each call also has its own deadline). */
  providerBudgetMs: number;
  /** Where failures that do not change the answer are reported (event queue down, record write failed). */
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

export interface SendResult {
  messageId: string;
  status: 'sent';
  channel: { id: string; type: string };
}

/**
 * Sends one message on the channel bound to a custom token, in this order:
 * 1. the channel exists (404 CHANNEL_NOT_FOUND: deleted after the token was created);
 * 2. the payload fits the channel's type (400 VALIDATION_ERROR, every problem in `details`);
 * 3. no recipient opted out of the channel (409 RECIPIENT_OPTED_OUT, each one in `details`);
 * 4. WhatsApp: a free-form `message` only inside the contact's 24-hour window (409 WINDOW_CLOSED with `closedAt`);
 *    a `template` at any time;
 * 5. a metered channel has a credit (402 PROVIDER_ERROR, nothing charged) and 1 is taken with a conditional write;
 * 6. the channel's provider sends it (failure or timeout: 502 PROVIDER_ERROR, the credit given back); a sandbox
 *    channel's "provider" is its outbox entry (a busy store: 503, the credit given back, nothing reported);
 * 7. the message is recorded with its `message.sent` / `message.failed` marked in the same write, then the event is
 *    queued for the channel's webhooks and the mark cleared.
 * DynamoDB work per send: one BatchGetItem (the channel with the conversation, suppression and mail-thread items of
 * the addresses the body names: the checks of 3 and 4 cost no round trip of their own; queued sends due within
 * moments of each other share one, `lookup`), the charge (metered channels only), the record write, the mark's
 * clearing. The token read happened in authentication.
 */
export function makeSendMessage(deps: SendMessageDeps) {
  const now = deps.now ?? (() => new Date());
  const finish = makeRecordSend({ ...deps, now });

  return async function sendMessage(
    grant: CustomTokenGrant,
    body: unknown,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const lookup = await (options.lookup
      ? options.lookup()
      : deps.conversations.lookupForSend(grant.projectId, grant.channelId, sendLookupKeys(body)));
    if (!lookup) throw new ChannelNotFoundError(grant.channelId, 'The channel of this token was deleted.');
    const { channel, message, conversation } = checkSend(lookup, body, now());

    // A paced send waits for its turn first (nothing is claimed or charged while it waits), then takes its message
    // for itself: from the claim on, whatever happens, it is never sent twice.
    if (options.beforeProvider) await options.beforeProvider();
    if (options.claim) await options.claim(channel);
    const metered = channel.credits !== undefined;
    if (
      metered &&
      (channel.credits! < 1 || !(await deps.channels.chargeCredit(channel.projectId, channel.channelId)))
    ) {
      throw new NoChannelCreditsError();
    }
    // Whatever stops the send from here on without anything sent gives the credit back.
    const refund = async () => {
      if (metered)
        await deps.channels
          .refundCredit(channel.projectId, channel.channelId)
          .catch((cause) => deps.onBackgroundError('credit refund', cause));
    };

    // A paced send takes its place in the channel's pace last, so that nothing stands between it and the provider.
    let departure: DepartureGate | undefined;
    if (options.departure) {
      try {
        departure = await options.departure();
      } catch (error) {
        // Nothing was sent: the credit goes back (the claim is its caller's to give back).
        await refund();
        throw error;
      }
    }
    const messageId = options.messageId ?? newId('msg');
    const startedAt = now();
    let receipt: ProviderReceipt;
    try {
      receipt = await deps.providers[channel.provider.kind].send({
        channel,
        message,
        deadline: startedAt.getTime() + deps.providerBudgetMs,
        ...(departure ? { departure } : {}),
      });
    } catch (error) {
      await refund();
      // Late at its slot every time, up to the last moment: nothing was sent, as when the slot itself gave up.
      if (error instanceof LateDepartureError) throw error;
      const reason = error instanceof ProviderError ? error.message : 'The provider failed';
      // A paced send waits and tries again: "too many requests" sent nothing and records nothing yet.
      if (options.retryRateLimited && error instanceof ProviderError && error.rateLimited)
        throw new ProviderRateLimitedError(reason);
      const sentIds = error instanceof ProviderError ? error.sentProviderMessageIds : [];
      await finish(channel, grant, message, conversation, messageId, 'failed', sentIds, reason);
      throw new ProviderFailedError(`The ${channel.type} provider failed: ${reason}.`, error);
    }

    if (channel.provider.kind === 'sandbox') {
      try {
        // The sandbox's delivery: without its outbox entry nothing was "sent", so nothing is recorded or reported.
        await deps.messages.deliverToOutbox(channel.projectId, channel.channelId, {
          messageId,
          to: recipient(message),
          payload: fitPayload(message.payload as Record<string, unknown>, RECORD_PAYLOAD_BYTES).payload,
          sentAt: now().toISOString(),
        });
      } catch (error) {
        await refund();
        throw new Error('The sandbox outbox could not be written', { cause: error });
      }
    }
    await finish(channel, grant, message, conversation, messageId, 'sent', receipt.providerMessageIds);
    return { messageId, status: 'sent', channel: { id: channel.channelId, type: channel.type } };
  };
}

export interface SendOptions {
  /** The message's id when it was given one before (a scheduled or batch send). */
  messageId?: string;
  /**
   * The channel and what the checks read for this body, read already (with other queued sends' items, a moment ago);
   * without it the send reads its own.
   */
  lookup?: () => Promise<SendLookup | undefined>;
  /** Called once the checks passed, before the charge: a deferred send's claim on its message (throws if taken). */
  claim?: (channel: Channel) => Promise<void>;
  /** Awaited once the checks passed, before the claim and the charge (a paced send's turn). */
  beforeProvider?: () => Promise<void>;
  /**
   * Awaited after the claim and the charge, right before the provider call (a paced send's slot on the pace), answering
   * the gate the provider asks right before its request leaves; when it throws (or the gate gives up), the credit is
   * given back and nothing is sent.
   */
  departure?: () => Promise<DepartureGate | undefined>;
  /** A provider's "too many requests" throws {@link ProviderRateLimitedError} (refunded, nothing recorded). */
  retryRateLimited?: boolean;
}

/** The provider said "too many requests": the credit was given back and nothing was recorded. */
export class ProviderRateLimitedError extends Error {
  override readonly name = 'ProviderRateLimitedError';
}
