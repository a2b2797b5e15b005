import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError, ValidationError } from '../kernel/domain-error.ts';
import { newId } from '../kernel/ids.ts';
import { requireProject, type Project } from '../projects/index.ts';
import type { ErrorDetail } from '../kernel/validation/issues.ts';
import {
  channelAddressProblem,
  PROVIDERS_BY_CHANNEL_TYPE,
  type Channel,
  type ChannelChange,
  type ChannelStore,
  type ChannelType,
  type ProviderConfig,
} from './channel.ts';
import type { MessageLog, OutboxPage } from './message.ts';
import { keywordsOf } from './conversation.ts';
import { forbiddenHostReason } from '../kernel/destination-policy.ts';
import type { Page, PageRequest } from '../kernel/page.ts';

export interface ChannelDeps {
  channels: ChannelStore;
  messages: Pick<MessageLog, 'listOutbox'>;
  projects: { get(projectId: string): Promise<Project | undefined> };
  /** Whether providers may point at loopback/private hosts and plain-http base URLs (local runs and tests). */
  allowPrivateDestinations: boolean;
  /** Ports an SMTP provider may use (`SMTP_ALLOWED_PORTS`). */
  smtpAllowedPorts: readonly number[] | 'any';
  /** Told when a channel is deleted: what remembers channels in this instance forgets it at once (recent-channels.ts). */
  forgetChannel?: (projectId: string, channelId: string) => void;
  now?: () => Date;
}

export interface CreateChannelInput {
  type: ChannelType;
  name: string;
  address: string;
  provider?: ProviderConfig;
  credits?: number;
  optOutKeywords?: string[];
  optInKeywords?: string[];
  pace?: { perSecond: number };
}

/** Channels of a project: create (with a provider and optional credits), list, delete, top up, sandbox outbox. */
export function makeChannelUseCases(deps: ChannelDeps) {
  const now = deps.now ?? (() => new Date());

  async function requireChannel(projectId: string, channelId: string): Promise<Channel> {
    await requireProject(deps.projects, projectId);
    const channel = await deps.channels.get(projectId, channelId);
    if (!channel) throw new NotFoundError('channel', `Channel ${channelId} does not exist.`);
    return channel;
  }

  /**
   * Provider destinations this deployment refuses: SMTP ports outside `smtpAllowedPorts` and, without private
   * destinations, hosts the address policy refuses by their text (the same policy as webhook URLs; names are
   * checked again on the address connected to, at send time).
   */
  function destinationProblems(provider: ProviderConfig): ErrorDetail[] {
    const problems: ErrorDetail[] = [];
    const ports = deps.smtpAllowedPorts;
    if (provider.kind === 'smtp' && ports !== 'any' && !ports.includes(provider.port))
      problems.push({ path: 'provider.port', message: `Allowed SMTP ports: ${ports.join(', ')}`, code: 'custom' });
    if (deps.allowPrivateDestinations) return problems;
    if (provider.kind === 'smtp' && forbiddenHostReason(provider.host)) {
      problems.push({
        path: 'provider.host',
        message: 'Private, loopback, link-local and metadata hosts are not allowed',
        code: 'custom',
      });
    }
    if ((provider.kind === 'twilio' || provider.kind === 'whatsapp-cloud') && provider.baseUrl !== undefined) {
      const url = new URL(provider.baseUrl);
      if (url.protocol !== 'https:')
        problems.push({ path: 'provider.baseUrl', message: 'Must be an https:// URL', code: 'invalid_format' });
      else if (forbiddenHostReason(url.hostname)) {
        problems.push({
          path: 'provider.baseUrl',
          message: 'Private, loopback, link-local and metadata hosts are not allowed',
          code: 'custom',
        });
      }
    }
    return problems;
  }

  return {
    requireChannel,

    async create(projectId: string, input: CreateChannelInput): Promise<Channel> {
      const addressProblem = channelAddressProblem(input.type, input.address);
      if (addressProblem)
        throw new ValidationError('The address does not fit the channel type.', [
          { path: 'address', message: addressProblem, code: 'custom' },
        ]);
      const project = await requireProject(deps.projects, projectId);
      const given = input.provider ?? { kind: 'sandbox' };
      // Meta's subscription check presents this; generated, never chosen by the caller.
      const provider: ProviderConfig =
        given.kind === 'whatsapp-cloud' ? { ...given, verifyToken: randomBytes(24).toString('base64url') } : given;
      if (!PROVIDERS_BY_CHANNEL_TYPE[input.type].includes(provider.kind)) {
        throw new ValidationError('This provider cannot serve this channel type.', [
          {
            path: 'provider.kind',
            message: `A ${input.type} channel takes: ${PROVIDERS_BY_CHANNEL_TYPE[input.type].join(', ')}`,
            code: 'custom',
          },
        ]);
      }
      const problems = destinationProblems(provider);
      if (problems.length)
        throw new ValidationError('The provider points at a destination this deployment does not allow.', problems);
      const channel: Channel = {
        channelId: newId('ch'),
        projectId,
        companyId: project.companyId,
        type: input.type,
        name: input.name,
        address: input.address,
        provider,
        ...(input.credits === undefined ? {} : { credits: input.credits }),
        ...(input.optOutKeywords ? { optOutKeywords: input.optOutKeywords } : {}),
        ...(input.optInKeywords ? { optInKeywords: input.optInKeywords } : {}),
        ...(input.pace ? { pace: input.pace } : {}),
        createdAt: now().toISOString(),
      };
      await deps.channels.create(channel);
      return channel;
    },

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
