import { failpoint } from '../kernel/failpoints.ts';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import { deliveryJobFor, type DeliveryJob, type DeliveryRecord, orderKeyOfRecord } from './model.ts';
import type { DeliveryQueue, EventBodies, WebhookDirectory } from './ports.ts';
import { withStoredBodies } from './stored-bodies.ts';

/** How far back a recover may reach (deliveries are kept 30 days; docs/reference/webhooks.md). */
export const RECOVER_MAX_AGE_MS = 30 * 86400 * 1000;
/** Claims (conditional writes) in flight at once. */
const CLAIM_CONCURRENCY = 25;

/** A window of event time, as delivery-id bounds: ids start with the event time (see `deliveryIdFor`). */
export interface FailedWindow {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive; undefined: no end. */
  until?: number;
}

/** A webhook's failed deliveries, found through an index rather than a scan. */
export interface FailedDeliveries {
  /** One page of the failed deliveries' ids whose event time is in the window, oldest first. */
  page(
    projectId: string,
    integrationId: string,
    window: FailedWindow,
    cursor?: string,
  ): Promise<{ deliveryIds: string[]; nextCursor?: string }>;
  /**
   * Flips one delivery from `failed` to `pending` (a conditional write) and returns it; undefined when it is no
   * longer failed (another recover or a manual retry took it). This write is what makes each delivery re-queued once.
   */
  claim(projectId: string, integrationId: string, deliveryId: string): Promise<DeliveryRecord | undefined>;
  /** Gives back a claimed delivery that could not be queued: failed again, listed again. */
  release(projectId: string, integrationId: string, deliveryId: string): Promise<void>;
}

/** Where a recover too large for one request goes on (a message on the deliveries queue, read by the deliver worker). */
export interface RecoverContinuation {
  continueLater(message: RecoverMessage): Promise<void>;
}

export interface RecoverMessage {
  v: 1;
  kind: 'recover';
  projectId: string;
  integrationId: string;
  since: number;
  until?: number;
  cursor?: string;
}

export function isRecoverMessage(value: unknown): value is RecoverMessage {
  const m = value as Partial<RecoverMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.kind === 'recover' &&
    typeof m.projectId === 'string' &&
    typeof m.integrationId === 'string' &&
    typeof m.since === 'number'
  );
}

export interface RecoverDeps {
  webhooks: Pick<WebhookDirectory, 'getWebhook'>;
  failed: FailedDeliveries;
  bodies: EventBodies;
  queue: DeliveryQueue;
  continuation: RecoverContinuation;
  /** How long one call works before handing the rest to a worker (a Lambda behind API Gateway has 29 s). */
  budgetMs: number;
  now?: () => number;
}

/**
 * Recover (docs/reference/webhooks.md): every failed delivery of a webhook whose event time is in [since, until) is
 * retried as it would be by hand: the same delivery, body and `webhook-id`, one attempt appended.
 *
 * 1. check the window (not reversed, not over 30 days back) and the webhook (exists, enabled);
 * 2. read the webhook's failed deliveries in the window from the index, a page at a time;
 * 3. claim each (failed → pending, conditional: two recovers at once never queue one delivery twice) and queue a
 *    manual job for it; a job that could not be queued is released (failed again);
 * 4. when the time budget runs out with pages left, hand the cursor to the deliver worker, which goes on the same
 *    way (`resume`). `recovered` counts the deliveries this call queued itself.
 */
export function makeRecoverFailedDeliveries(deps: RecoverDeps) {
  const now = deps.now ?? Date.now;

  async function requeue(
    projectId: string,
    integrationId: string,
    deliveryIds: string[],
    ordered: boolean,
  ): Promise<number> {
    const jobs: DeliveryJob[] = [];
    for (let i = 0; i < deliveryIds.length; i += CLAIM_CONCURRENCY) {
      const claimed = await Promise.all(
        deliveryIds.slice(i, i + CLAIM_CONCURRENCY).map((id) => deps.failed.claim(projectId, integrationId, id)),
      );
      const records = await withStoredBodies(
        claimed.filter((r) => r !== undefined),
        deps.bodies,
      );
      for (const record of records) {
        if (record.body === undefined && record.bodyRef === undefined) {
          // Nothing stored to send again (its body is past its retention): leave it failed.
          await deps.failed.release(projectId, integrationId, record.deliveryId);
          continue;
        }
        // Pages come oldest first: an ordered webhook's recovered deliveries queue in event order per conversation.
        jobs.push(
          deliveryJobFor(
            { ...record, orderKey: orderKeyOfRecord(record) },
            { manual: true, acceptedAt: now(), attemptsBefore: record.attempts.length, ordered },
          ),
        );
      }
    }
    failpoint('after-recover-claim');
    const notSent = await deps.queue.enqueue(jobs.map((job) => ({ job })));
    await Promise.all(
      [...notSent].map((index) => deps.failed.release(projectId, integrationId, jobs[index]!.deliveryId)),
    );
    return jobs.length - notSent.size;
  }

  async function run(message: RecoverMessage, ordered: boolean): Promise<{ recovered: number; continued: boolean }> {
    const stopAt = now() + deps.budgetMs;
    const window = { since: message.since, ...(message.until !== undefined ? { until: message.until } : {}) };
    let cursor = message.cursor;
    let recovered = 0;
    do {
      const page = await deps.failed.page(message.projectId, message.integrationId, window, cursor);
      recovered += await requeue(message.projectId, message.integrationId, page.deliveryIds, ordered);
      cursor = page.nextCursor;
      if (cursor && now() >= stopAt) {
        await deps.continuation.continueLater({ ...message, cursor });
        return { recovered, continued: true };
      }
    } while (cursor);
    return { recovered, continued: false };
  }

  return {
    async recover(
      projectId: string,
      integrationId: string,
      input: { since: Date; until?: Date },
    ): Promise<{ recovered: number; continued: boolean }> {
      const since = input.since.getTime();
      const until = input.until?.getTime();
      const problems = [];
      if (since < now() - RECOVER_MAX_AGE_MS)
        problems.push({ path: 'since', message: 'Must be within the last 30 days', code: 'too_small' });
      if (until !== undefined && since > until)
        problems.push({ path: 'until', message: 'Must not be before since', code: 'custom' });
      if (problems.length) throw new ValidationError('The recovery window is not valid.', problems);
      const webhook = await deps.webhooks.getWebhook(projectId, integrationId);
      if (!webhook) throw new NotFoundError('integration', `Webhook ${integrationId} does not exist.`);
      if (!webhook.enabled) throw new ConflictError('The webhook is disabled: enable it before recovering deliveries.');
      return run(
        { v: 1, kind: 'recover', projectId, integrationId, since, ...(until !== undefined ? { until } : {}) },
        webhook.ordering === 'conversation',
      );
    },

    /** Goes on with a recover handed over by `continueLater` (deliver worker). */
    async resume(message: RecoverMessage): Promise<number> {
      const webhook = await deps.webhooks.getWebhook(message.projectId, message.integrationId);
      if (!webhook?.enabled) return 0; // deleted or disabled since: nothing more to send
      return (await run(message, webhook.ordering === 'conversation')).recovered;
    },
  };
}

export type RecoverFailedDeliveries = ReturnType<typeof makeRecoverFailedDeliveries>;
