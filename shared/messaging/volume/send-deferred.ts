import type { CustomTokenGrant } from '../../auth/index.ts';
import { markOf, type EventPublisher } from '../../events/index.ts';
import { NoChannelCreditsError } from '../errors.ts';
import type { MessageStatusStore } from '../message-status.ts';
import { ProviderRateLimitedError, type SendOptions } from '../send-message.ts';
import type { DeferredMessage, DeferredStatus, DeferredStore } from './deferred.ts';
import { type Refusal, refusalOf } from './refusal.ts';

/** How long a message keeps waiting after a provider's first "too many requests" before it fails. */
export const RATE_LIMITED_FOR_MS = 3_600_000;

export interface SendDeferredDeps {
  store: Pick<DeferredStore, 'claim' | 'release' | 'fail'>;
  sendMessage: (grant: CustomTokenGrant, body: unknown, options: SendOptions) => Promise<unknown>;
  events: Pick<EventPublisher, 'prepare' | 'send'>;
  statuses: Pick<MessageStatusStore, 'clearEvent'>;
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

/** What became of one message: done (sent, failed or taken by another worker), or back on the queue after a wait. */
export type FireOutcome = { done: true } | { done: false; retryInSeconds: number };

/**
 * Sends one deferred message at its time, as a send received then (send-message.ts): the same checks, the charge
 * and the provider call, under its own id. It claims the message (`sending`) right before the charge, so a second
 * copy of its job, a cancel or a crash can never make it leave twice.
 * - a refusal (payload, opted out, window closed, no credits, channel gone) ends it `failed`, with a
 *   `message.failed` whose `error.code` is what the send would have answered;
 * - a provider's "too many requests" gives the claim back and waits (5 s, then doubling up to 5 min) for up to an
 *   hour from the first, then fails;
 * - a provider failure is the send's own (`failed`, refunded, `message.failed`).
 */
export function makeSendDeferred(deps: SendDeferredDeps) {
  const now = deps.now ?? (() => new Date());

  async function fail(message: DeferredMessage, from: readonly DeferredStatus[], refusal: Refusal): Promise<void> {
    const at = now();
    const prepared = await deps.events.prepare(
      {
        type: 'message.failed',
        projectId: message.projectId,
        companyId: message.companyId,
        channel: { id: message.channelId, type: message.channelType, address: message.channelAddress },
        data: {
          messageId: message.messageId,
          conversationId: message.conversationId,
          integrationId: message.integrationId,
          status: 'failed',
          to: message.to,
          provider: message.provider,
          error: { code: refusal.code, message: refusal.message },
          payload: message.body,
          sentAt: at.toISOString(),
        },
      },
      { key: `failed:${message.messageId}`, at },
    );
    const failure = { code: refusal.code, message: refusal.message, at: at.toISOString() };
    if (!(await deps.store.fail(message.messageId, from, failure, markOf(prepared)))) return;
    try {
      await deps.events.send(prepared.message);
      await deps.statuses.clearEvent(message.messageId, prepared.message.eventId);
    } catch (cause) {
      deps.onBackgroundError('event publish (left to the sweep)', cause);
    }
  }

  return {
    fail,
    /** A message found `sending` again: its worker died mid-send. Never sent twice, so it ends failed. */
    async abandon(message: DeferredMessage): Promise<void> {
      await fail(message, ['sending'], {
        code: 'PROVIDER_ERROR',
        message:
          'The service stopped while this message was being sent; it was not sent again (the provider may or may not have it).',
      });
    },

    /**
     * `turn`: awaited once its checks passed, before its claim (its instant on the channel's pace); `departure`: after
     * its claim and charge, right before the provider call (its slot on the pace); `lookup`: what its checks read,
     * read for a group of sends at once.
     */
    async fire(
      message: DeferredMessage,
      turn?: () => Promise<void>,
      departure?: SendOptions['departure'],
      lookup?: SendOptions['lookup'],
    ): Promise<FireOutcome> {
      const grant: CustomTokenGrant = {
        kind: 'custom',
        projectId: message.projectId,
        channelId: message.channelId,
        integrationId: message.integrationId,
      };
      const expected = message.status as 'queued' | 'scheduled';
      let claimed = false;
      try {
        await deps.sendMessage(grant, message.body, {
          messageId: message.messageId,
          retryRateLimited: true,
          ...(turn ? { beforeProvider: turn } : {}),
          ...(departure ? { departure } : {}),
          ...(lookup ? { lookup } : {}),
          claim: async () => {
            const sendAt = expected === 'scheduled' ? message.sendAt : undefined;
            if (!(await deps.store.claim(message.messageId, { status: expected, ...(sendAt ? { sendAt } : {}) })))
              throw new AlreadyTaken();
            claimed = true;
          },
        });
        return { done: true };
      } catch (error) {
        if (error instanceof AlreadyTaken) return { done: true };
        if (error instanceof ProviderRateLimitedError) return rateLimited(message, error);
        const refusal = refusalOf(error);
        if (refusal) {
          // A provider failure was recorded by the send itself.
          if (refusal.code !== 'PROVIDER_ERROR' || !claimed || error instanceof NoChannelCreditsError)
            await fail(message, [claimed ? 'sending' : expected], refusal);
          return { done: true };
        }
        // An outage before the provider was called (the charge's write): give the claim back and try again.
        if (claimed)
          await deps.store.release(message.messageId, message.retryUntil ?? '', message.rateLimitedTimes ?? 0);
        throw error;
      }
    },
  };

  async function rateLimited(message: DeferredMessage, error: Error): Promise<FireOutcome> {
    const at = now().getTime();
    const until = message.retryUntil ? Date.parse(message.retryUntil) : at + RATE_LIMITED_FOR_MS;
    if (at >= until) {
      await fail(message, ['sending'], {
        code: 'PROVIDER_ERROR',
        message: `The provider kept answering "too many requests" for an hour: ${error.message}`,
      });
      return { done: true };
    }
    const times = (message.rateLimitedTimes ?? 0) + 1;
    await deps.store.release(message.messageId, new Date(until).toISOString(), times);
    return { done: false, retryInSeconds: Math.min(300, 5 * 2 ** (times - 1)) };
  }
}

class AlreadyTaken extends Error {}
