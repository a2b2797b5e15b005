import type { CustomTokenGrant } from '../../auth/index.ts';
import { newId } from '../../kernel/ids.ts';
import { ValidationError } from '../../kernel/domain-error.ts';
import type { ConversationStore } from '../conversation.ts';
import { ChannelNotFoundError } from '../errors.ts';
import { validateSendPayload } from '../payloads.ts';
import { checkSend, mergedLookupKeys } from '../send-checks.ts';
import type { DeferredMessage } from './deferred.ts';
import { type Refusal, refusalOf } from './refusal.ts';
import { parseSendAt, splitSendAt } from './send-at.ts';
import { deferredMessageOf } from './schedule-send.ts';
import type { BatchStore } from './batch.ts';
import { type Pace, paceOf } from './pace.ts';

/** Items per batch, and the largest item kept for a later send (a DynamoDB item holds 400 KB). */
export const MAX_BATCH_ITEMS = 1000;
export const MAX_DEFERRED_BODY_BYTES = 300 * 1024;

export interface BatchItemResult {
  index: number;
  messageId?: string;
  status: 'queued' | 'scheduled' | 'refused';
  error?: Refusal;
}

export interface AcceptBatchDeps {
  conversations: Pick<ConversationStore, 'lookupForSend'>;
  batches: Pick<BatchStore, 'create'>;
  /** Writes and queues them; those queued now take their place in the channel's queue at its pace. */
  accept: (messages: readonly DeferredMessage[], pace?: Pace) => Promise<void>;
  now?: () => Date;
}

/**
 * `POST /api/integration/generic/batch`: `{ messages: [<send body>, …] }`, 1 to 1,000 items.
 * 1. the envelope (400 VALIDATION_ERROR: not an object with only `messages`, not 1 to 1,000 objects);
 * 2. the channel with everything every item names, read at once (one BatchGetItem per 100 keys, in parallel);
 * 3. each item alone: a `sendAt` item is checked as a scheduled send (its time, its payload), any other as a send
 *    would be (payload, suppression, WhatsApp window); a problem makes it `refused` with the code the send would
 *    answer, never the batch;
 * 4. the batch (its message ids) and the accepted items are written, then enqueued (accept-deferred.ts).
 * Nothing is charged here: each message is charged when it leaves, at the channel's pace.
 */
export function makeAcceptBatch(deps: AcceptBatchDeps) {
  const now = deps.now ?? (() => new Date());
  return async function acceptBatch(grant: CustomTokenGrant, envelope: unknown) {
    const items = envelopeItems(envelope);
    const lookup = await deps.conversations.lookupForSend(grant.projectId, grant.channelId, mergedLookupKeys(items));
    if (!lookup) throw new ChannelNotFoundError(grant.channelId, 'The channel of this token was deleted.');
    const at = now();
    const batchId = newId('batch');
    const accepted: DeferredMessage[] = [];
    const results: BatchItemResult[] = items.map((item, index) => {
      try {
        const { body, sendAt, hasSendAt } = splitSendAt(item);
        if (Buffer.byteLength(JSON.stringify(body)) > MAX_DEFERRED_BODY_BYTES)
          throw new ValidationError('A batch item is at most 300 KB of JSON.');
        let message: DeferredMessage;
        if (hasSendAt) {
          const when = parseSendAt(sendAt, at);
          const validation = validateSendPayload(lookup.channel.type, body);
          if (!when.ok || !validation.ok)
            throw new ValidationError('The scheduled item is invalid.', [
              ...(when.ok ? [] : [when.detail]),
              ...(validation.ok ? [] : validation.details),
            ]);
          message = deferredMessageOf(grant, lookup.channel, validation.value, body, 'scheduled', at, {
            sendAt: when.sendAt,
            batchId,
          });
        } else {
          const checked = checkSend(lookup, body, at);
          message = deferredMessageOf(grant, lookup.channel, checked.message, body, 'queued', at, { batchId });
        }
        accepted.push(message);
        return { index, messageId: message.messageId, status: message.status as 'queued' | 'scheduled' };
      } catch (error) {
        const refusal = refusalOf(error);
        if (!refusal) throw error;
        return { index, status: 'refused' as const, error: refusal };
      }
    });
    await deps.batches.create({
      batchId,
      projectId: grant.projectId,
      channelId: grant.channelId,
      createdAt: at.toISOString(),
      total: items.length,
      messageIds: accepted.map((m) => m.messageId),
      refused: items.length - accepted.length,
    });
    await deps.accept(accepted, paceOf(lookup.channel));
    return { batchId, items: results };
  };
}

function envelopeItems(envelope: unknown): unknown[] {
  const input = envelope as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => k !== 'messages');
  const details = unknown.map((k) => ({ path: k, message: 'Unknown field', code: 'unrecognized_keys' }));
  const messages = input.messages;
  if (!Array.isArray(messages))
    details.push({ path: 'messages', message: 'An array of send bodies', code: 'invalid_type' });
  else if (messages.length < 1 || messages.length > MAX_BATCH_ITEMS)
    details.push({
      path: 'messages',
      message: `1 to ${MAX_BATCH_ITEMS} items (got ${messages.length})`,
      code: messages.length ? 'too_big' : 'too_small',
    });
  else
    messages.forEach((m, i) => {
      if (!m || typeof m !== 'object' || Array.isArray(m))
        details.push({ path: `messages.${i}`, message: 'A send body (a JSON object)', code: 'invalid_type' });
    });
  if (details.length) throw new ValidationError('The batch envelope is invalid.', details);
  return messages as unknown[];
}
