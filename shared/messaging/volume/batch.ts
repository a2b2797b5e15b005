import type { CustomTokenGrant } from '../../auth/index.ts';
import { NotFoundError } from '../../kernel/domain-error.ts';
import type { DeferredStore } from './deferred.ts';

/** A batch as written when it was accepted: its items' messages, and how many items were refused. */
export interface BatchRecord {
  batchId: string;
  projectId: string;
  channelId: string;
  createdAt: string;
  total: number;
  messageIds: string[];
  refused: number;
}

export interface BatchStore {
  create(batch: BatchRecord): Promise<void>;
  get(batchId: string): Promise<BatchRecord | undefined>;
}

export interface BatchProgress {
  batchId: string;
  total: number;
  createdAt: string;
  counts: { queued: number; sent: number; failed: number; scheduled: number; canceled: number; refused: number };
}

/**
 * A batch's progress, counted from its messages as they are now (one BatchGetItem per 100 of them): no counter is
 * written as messages leave, so a crash can never leave it wrong. Sent counts every message that left (delivered and
 * read too); queued counts one being sent. Another channel's batch is answered like an unknown one (404).
 */
export function makeBatchProgress(deps: {
  batches: Pick<BatchStore, 'get'>;
  messages: Pick<DeferredStore, 'statuses'>;
}) {
  return async function batchProgress(
    grant: Pick<CustomTokenGrant, 'projectId' | 'channelId'>,
    batchId: string,
  ): Promise<BatchProgress> {
    const batch = /^batch_[a-z0-9]{1,64}$/.test(batchId) ? await deps.batches.get(batchId) : undefined;
    if (!batch || batch.projectId !== grant.projectId || batch.channelId !== grant.channelId)
      throw new NotFoundError('batch', `No batch ${batchId} on this token's channel.`);
    const statuses = await deps.messages.statuses(batch.messageIds);
    const counts = { queued: 0, sent: 0, failed: 0, scheduled: 0, canceled: 0, refused: batch.refused };
    for (const id of batch.messageIds) {
      const status = statuses.get(id) ?? 'queued';
      if (status === 'queued' || status === 'sending') counts.queued++;
      else if (status === 'scheduled') counts.scheduled++;
      else if (status === 'canceled') counts.canceled++;
      else if (status === 'failed') counts.failed++;
      else counts.sent++;
    }
    return { batchId, total: batch.total, createdAt: batch.createdAt, counts };
  };
}
