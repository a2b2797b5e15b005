import type { CustomTokenGrant } from '../../auth/index.ts';
import { ValidationError } from '../../kernel/domain-error.ts';
import { MessageNotFoundError, NotScheduledError } from '../errors.ts';
import type { DeferredStore, OutboundQueue } from './deferred.ts';
import { enqueueSoon } from './accept-deferred.ts';
import { parseSendAt } from './send-at.ts';

export interface ManageScheduledDeps {
  store: Pick<DeferredStore, 'get' | 'cancel' | 'reschedule' | 'removeDue'>;
  queue: OutboundQueue;
  lookaheadMs: number;
  onBackgroundError: (what: string, cause: unknown) => void;
  now?: () => Date;
}

/**
 * Cancel and move a scheduled message of the custom token's channel, each one conditional write on the message
 * (`status = scheduled`): a message already sent, failed, canceled or sent at once is 409 NOT_SCHEDULED, another
 * channel's or an unknown one 404 MESSAGE_NOT_FOUND. A canceled message is never sent; a moved one leaves at its new
 * time (a job already on the queue for the old time finds the time changed and does nothing).
 */
export function makeManageScheduled(deps: ManageScheduledDeps) {
  const now = deps.now ?? (() => new Date());

  async function ownMessage(grant: CustomTokenGrant, messageId: string) {
    const record = /^msg_[a-z0-9]{1,64}$/.test(messageId) ? await deps.store.get(messageId) : undefined;
    const owner = record as { projectId?: string; channelId?: string } | undefined;
    if (!record || owner?.projectId !== grant.projectId || owner?.channelId !== grant.channelId)
      throw new MessageNotFoundError(messageId);
    return record;
  }

  return {
    async cancel(grant: CustomTokenGrant, messageId: string): Promise<void> {
      await ownMessage(grant, messageId);
      const result = await deps.store.cancel(messageId, now().toISOString());
      if (!result.changed) throw new NotScheduledError(messageId, result.status ?? 'gone');
    },

    async reschedule(grant: CustomTokenGrant, messageId: string, body: unknown): Promise<void> {
      await ownMessage(grant, messageId);
      const input = (body ?? {}) as Record<string, unknown>;
      const unknown = Object.keys(input).filter((k) => k !== 'sendAt');
      const at = now();
      const when = parseSendAt(input.sendAt, at);
      const details = [
        ...unknown.map((k) => ({
          path: k,
          message: 'Unknown field: only sendAt can be changed',
          code: 'unrecognized_keys',
        })),
        ...(when.ok ? [] : [when.detail]),
      ];
      if (!when.ok || details.length) throw new ValidationError('The new time is invalid.', details);
      const result = await deps.store.reschedule(messageId, when.sendAt, at.toISOString());
      if (!result.changed) throw new NotScheduledError(messageId, result.status ?? 'gone');
      await enqueueSoon(deps, [{ messageId, dueAt: when.sendAt, sendAt: when.sendAt }], at.getTime());
    },
  };
}
