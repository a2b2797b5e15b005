import { randomBytes } from 'node:crypto';
import { ValidationError } from '../kernel/domain-error.ts';
import { forbiddenHostReason } from '../kernel/destination-policy.ts';
import { newId } from '../kernel/ids.ts';
import type { ErrorDetail } from '../kernel/validation/issues.ts';
import { requireProject } from '../projects/index.ts';
import {
  type Channel,
  channelAddressProblem,
  type ChannelStore,
  type ChannelType,
  PROVIDERS_BY_CHANNEL_TYPE,
  type ProviderConfig,
} from './channel.ts';
import type { Project } from '../projects/index.ts';

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

/** Where this deployment lets a channel's provider point. */
export interface DestinationPolicy {
  /** Whether providers may point at loopback/private hosts and plain-http base URLs (local runs and tests). */
  allowPrivateDestinations: boolean;
  /** Ports an SMTP provider may use (`SMTP_ALLOWED_PORTS`). */
  smtpAllowedPorts: readonly number[] | 'any';
}

/**
 * Creates a channel: its address fits its type, its provider serves that type and points only where this deployment
 * allows; a WhatsApp Cloud channel gets the verify token Meta's subscription check presents.
 */
export function makeCreateChannel(
  deps: DestinationPolicy & {
    channels: Pick<ChannelStore, 'create'>;
    projects: { get(projectId: string): Promise<Project | undefined> };
    now: () => Date;
  },
) {
  return async function create(projectId: string, input: CreateChannelInput): Promise<Channel> {
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
    const problems = destinationProblems(provider, deps);
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
      createdAt: deps.now().toISOString(),
    };
    await deps.channels.create(channel);
    return channel;
  };
}

/**
 * Provider destinations this deployment refuses: SMTP ports outside `smtpAllowedPorts` and, without private
 * destinations, hosts the address policy refuses by their text (the same policy as webhook URLs; names are
 * checked again on the address connected to, at send time).
 */
function destinationProblems(provider: ProviderConfig, deps: DestinationPolicy): ErrorDetail[] {
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
