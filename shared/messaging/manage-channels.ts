import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import { requireProject, type Project } from '../projects/index.ts';
import type { Channel, ChannelChange, ChannelStore } from './channel.ts';
import type { MessageLog, OutboxPage } from './message.ts';
import { keywordsOf } from './conversation.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
import { type DestinationPolicy, makeCreateChannel } from './create-channel.ts';

export interface ChannelDeps extends DestinationPolicy {
  channels: ChannelStore;
  messages: Pick<MessageLog, 'listOutbox'>;
  projects: { get(projectId: string): Promise<Project | undefined> };
  /** Told when a channel is deleted: what remembers channels in this instance forgets it at once (recent-channels.ts). */
  forgetChannel?: (projectId: string, channelId: string) => void;
  now?: () => Date;
}

/** Channels of a project: create (with a provider and optional credits), list, delete, top up, sandbox outbox. */
export function makeChannelUseCases(deps: ChannelDeps) {
  const now = deps.now ?? (() => new Date());
  const create = makeCreateChannel({ ...deps, now });

  async function requireChannel(projectId: string, channelId: string): Promise<Channel> {
    await requireProject(deps.projects, projectId);
    const channel = await deps.channels.get(projectId, channelId);
    if (!channel) throw new NotFoundError('channel', `Channel ${channelId} does not exist.`);
    return channel;
  }

  return {
    requireChannel,

    create,

    /** A page of the project's channels. */
    async list(projectId: string, page: PageRequest): Promise<Page<Channel>> {
      await requireProject(deps.projects, projectId);
      return deps.channels.list(projectId, page);
    },

    /**
     * Changes a channel's name or keyword lists (`null` restores the defaults). Email channels take no keywords; a
     * keyword in both lists is refused.
     */
    async update(projectId: string, channelId: string, change: ChannelChange): Promise<Channel> {
      const channel = await requireChannel(projectId, channelId);
      const keywords = change.optOutKeywords !== undefined || change.optInKeywords !== undefined;
      if (keywords && channel.type === 'email')
        throw new ValidationError('Email channels take no keywords.', [
          {
            path: change.optOutKeywords !== undefined ? 'optOutKeywords' : 'optInKeywords',
            message: 'Email channels take no keywords (their contacts unsubscribe by mail, and bounces suppress)',
            code: 'custom',
          },
        ]);
      const optOut = change.optOutKeywords === undefined ? channel.optOutKeywords : change.optOutKeywords;
      const optIn = change.optInKeywords === undefined ? channel.optInKeywords : change.optInKeywords;
      const out = new Set(keywordsOf({ optOutKeywords: optOut ?? undefined }).optOut.map((k) => k.toUpperCase()));
      const clash = keywordsOf({ optInKeywords: optIn ?? undefined }).optIn.find((k) => out.has(k.toUpperCase()));
      if (clash)
        throw new ValidationError('A keyword cannot both opt out and opt in.', [
          { path: 'optInKeywords', message: `"${clash}" is also an opt-out keyword`, code: 'custom' },
        ]);
      const updated = await deps.channels.update(projectId, channelId, change);
      if (!updated) throw new NotFoundError('channel', `Channel ${channelId} does not exist.`);
      return updated;
    },

    /** Deletes a channel; custom tokens bound to it then answer 404 CHANNEL_NOT_FOUND on send. */
    async remove(projectId: string, channelId: string): Promise<void> {
      await requireProject(deps.projects, projectId);
      const deleted = await deps.channels.delete(projectId, channelId);
      deps.forgetChannel?.(projectId, channelId);
      if (!deleted) throw new NotFoundError('channel', `Channel ${channelId} does not exist.`);
    },

    /** Adds message credits. An unmetered channel becomes metered with `amount` credits. */
    async addCredits(projectId: string, channelId: string, amount: number): Promise<Channel> {
      await requireProject(deps.projects, projectId);
      const channel = await deps.channels.addCredits(projectId, channelId, amount);
      if (!channel) throw new NotFoundError('channel', `Channel ${channelId} does not exist.`);
      return channel;
    },

    /** A sandbox channel's outbox, newest first. */
    async outbox(projectId: string, channelId: string, page: PageRequest): Promise<OutboxPage> {
      const channel = await requireChannel(projectId, channelId);
      if (channel.provider.kind !== 'sandbox') {
        throw new ConflictError(
          `Channel ${channelId} sends through ${channel.provider.kind}; only sandbox channels have an outbox.`,
        );
      }
      return deps.messages.listOutbox(projectId, channelId, page);
    },
  };
}

export type ChannelUseCases = ReturnType<typeof makeChannelUseCases>;
