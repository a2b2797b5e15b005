import { NotFoundError } from '../../kernel/domain-error.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import type { Channel } from '../channel.ts';
import { NotScheduledError } from '../errors.ts';
import type { BatchProgress } from './batch.ts';
import type { DeferredMessage, DeferredStore } from './deferred.ts';

export interface ChannelVolumeDeps {
  requireChannel: (projectId: string, channelId: string) => Promise<Channel>;
  scheduled: (channelId: string, page: PageRequest) => Promise<Page<DeferredMessage>>;
  batches: (
    channelId: string,
    page: PageRequest,
  ) => Promise<Page<{ batchId: string; total: number; createdAt: string }>>;
  progress: (owner: { projectId: string; channelId: string }, batchId: string) => Promise<BatchProgress>;
  store: Pick<DeferredStore, 'get' | 'cancel'>;
  now?: () => Date;
}

/**
 * What the management API (the console) shows of a channel's sends at volume: its scheduled messages by time (cancel
 * one: 204, or 409 NOT_SCHEDULED once it left), its batches newest first, and a batch's progress. Every call first
 * finds the channel in the project (404 otherwise), and a message or batch of another channel reads as none.
 */
export function makeChannelVolume(deps: ChannelVolumeDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    async listScheduled(projectId: string, channelId: string, page: PageRequest) {
      await deps.requireChannel(projectId, channelId);
      return deps.scheduled(channelId, page);
    },
    async cancelScheduled(projectId: string, channelId: string, messageId: string): Promise<void> {
      await deps.requireChannel(projectId, channelId);
      const found = /^msg_[a-z0-9]{1,64}$/.test(messageId) ? await deps.store.get(messageId) : undefined;
      const owner = found as { projectId?: string; channelId?: string } | undefined;
      if (!found || owner?.projectId !== projectId || owner?.channelId !== channelId)
        throw new NotFoundError('message', `No message ${messageId} on this channel.`);
      const result = await deps.store.cancel(messageId, now().toISOString());
      if (!result.changed) throw new NotScheduledError(messageId, result.status ?? 'gone');
    },
    async listBatches(projectId: string, channelId: string, page: PageRequest) {
      await deps.requireChannel(projectId, channelId);
      return deps.batches(channelId, page);
    },
    async batchProgress(projectId: string, channelId: string, batchId: string): Promise<BatchProgress> {
      await deps.requireChannel(projectId, channelId);
      return deps.progress({ projectId, channelId }, batchId);
    },
  };
}

export type ChannelVolume = ReturnType<typeof makeChannelVolume>;
