import * as z from '../kernel/validation/zod.ts';
import type { Page, PageRequest } from '../kernel/page.ts';
/**
 * A channel: one WhatsApp number, email mailbox or SMS number of a project, with the provider that really sends
 * its messages and, optionally, a balance of message credits (absent = unmetered).
 */
export const CHANNEL_TYPES = ['whatsapp', 'email', 'sms'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/**
 * What a channel's `address` must look like, per type: the number a WhatsApp or SMS channel sends from (SMS: or an
 * alphanumeric sender id), the mailbox of an email channel.
 */
const ADDRESS_RULES: Record<ChannelType, { test(address: string): boolean; message: string }> = {
  whatsapp: {
    test: (a: string) => /^\+?\d{8,15}$/.test(a),
    message: 'A phone number: 8 to 15 digits, optionally after +',
  },
  sms: {
    test: (a: string) => /^\+\d{8,15}$/.test(a) || /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(a),
    message: 'A phone number in E.164 (+ then 8 to 15 digits) or an alphanumeric sender id (up to 11 characters)',
  },
  email: { test: (a: string) => z.email().safeParse(a).success, message: 'A valid email address' },
};

/** Why `address` cannot be a channel of this type, or undefined when it can. */
export function channelAddressProblem(type: ChannelType, address: string): string | undefined {
  const rule = ADDRESS_RULES[type];
  return rule.test(address) ? undefined : rule.message;
}

export type SandboxProvider = { kind: 'sandbox' };
export type SmtpProvider = {
  kind: 'smtp';
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465); otherwise STARTTLS, required unless `allowPlaintext`. */
  secure?: boolean;
  /** The channel's explicit consent to send (credentials included) without TLS when the server offers none. */
  allowPlaintext?: boolean;
  user?: string;
  pass?: string;
};
export type TwilioProvider = { kind: 'twilio'; accountSid: string; authToken: string; baseUrl?: string };
export type WhatsAppCloudProvider = {
  kind: 'whatsapp-cloud';
  phoneNumberId: string;
  accessToken: string;
  baseUrl?: string;
  /** Meta's app secret: signs the webhooks Meta posts (`X-Hub-Signature-256`). Write-only, stored sealed. */
  appSecret?: string;
  /** Generated at creation: what Meta's subscription check must present (`hub.verify_token`). */
  verifyToken?: string;
};

/**
 * Email through Amazon SES v2 with the deployment's own AWS credentials: `region` (default the deployment's),
 * `configurationSet` (default the deployment's, whose events come back), `fromArn` (a sending-authorization identity).
 */
export type SesProvider = { kind: 'ses'; region?: string; configurationSet?: string; fromArn?: string };

/** How a channel's messages leave the service (docs/reference/messaging.md). Credentials are stored encrypted. */
export type ProviderConfig = SandboxProvider | SmtpProvider | TwilioProvider | WhatsAppCloudProvider | SesProvider;
export type ProviderKind = ProviderConfig['kind'];

/** Which provider kinds can serve which channel type (sandbox serves all). */
export const PROVIDERS_BY_CHANNEL_TYPE: Record<ChannelType, readonly ProviderKind[]> = {
  whatsapp: ['sandbox', 'whatsapp-cloud'],
  email: ['sandbox', 'smtp', 'ses'],
  sms: ['sandbox', 'twilio'],
};

export interface Channel {
  channelId: string;
  projectId: string;
  /** The project's company, copied here so that a send needs no project read (it goes on every event). */
  companyId: number;
  type: ChannelType;
  name: string;
  /** The channel's own address: the sender of its messages (phone number or email address). */
  address: string;
  provider: ProviderConfig;
  /** Message credits left; undefined = unmetered. */
  credits?: number;
  /** SMS and WhatsApp: what a contact writes to opt out (the whole message, any case); absent = the defaults. */
  optOutKeywords?: string[];
  /** SMS and WhatsApp: what a contact writes to opt back in; absent = the defaults. */
  optInKeywords?: string[];
  /** How fast batch and scheduled sends leave it; absent = its type's default (volume/pace.ts). */
  pace?: { perSecond: number };
  createdAt: string;
}

/** Channel persistence. Credits live on the channel item, so charging is one conditional write. */
export interface ChannelStore {
  create(channel: Channel): Promise<void>;
  get(projectId: string, channelId: string): Promise<Channel | undefined>;
  /** A page of the project's channels, in id order. */
  list(projectId: string, page: PageRequest): Promise<Page<Channel>>;
  /** True when a channel was deleted. */
  delete(projectId: string, channelId: string): Promise<boolean>;
  /** Adds credits (an unmetered channel becomes metered); undefined when the channel does not exist. */
  addCredits(projectId: string, channelId: string, amount: number): Promise<Channel | undefined>;
  /** Takes one credit if the channel has one left: a single conditional write. False when none is left. */
  chargeCredit(projectId: string, channelId: string): Promise<boolean>;
  /** Gives one charged credit back (the provider failed); a channel deleted meanwhile is left alone. */
  refundCredit(projectId: string, channelId: string): Promise<void>;
  /**
   * Changes a channel's settings (name, keyword lists; `null` restores a list's defaults); undefined when the channel
   * does not exist.
   */
  update(projectId: string, channelId: string, change: ChannelChange): Promise<Channel | undefined>;
}

/** What `PATCH /channels/{c}` may change. */
export interface ChannelChange {
  name?: string;
  optOutKeywords?: string[] | null;
  optInKeywords?: string[] | null;
  pace?: { perSecond: number } | null;
}

/** The provider as the management API shows it: everything but the credentials. */
export function providerView(provider: ProviderConfig): Record<string, unknown> {
  switch (provider.kind) {
    case 'sandbox':
      return { kind: 'sandbox' };
    case 'smtp':
      return {
        kind: 'smtp',
        host: provider.host,
        port: provider.port,
        secure: provider.secure ?? false,
        ...(provider.allowPlaintext ? { allowPlaintext: true } : {}),
        ...(provider.user ? { user: provider.user } : {}),
        hasPassword: Boolean(provider.pass),
      };
    case 'twilio':
      return {
        kind: 'twilio',
        accountSid: provider.accountSid,
        ...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}),
      };
    case 'ses':
      return {
        kind: 'ses',
        ...(provider.region ? { region: provider.region } : {}),
        ...(provider.configurationSet ? { configurationSet: provider.configurationSet } : {}),
        ...(provider.fromArn ? { fromArn: provider.fromArn } : {}),
      };
    case 'whatsapp-cloud':
      return {
        kind: 'whatsapp-cloud',
        phoneNumberId: provider.phoneNumberId,
        ...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}),
        hasAppSecret: Boolean(provider.appSecret),
        ...(provider.verifyToken ? { verifyToken: provider.verifyToken } : {}),
      };
  }
}

/**
 * Where a channel's provider reports back: the public URL for Twilio and WhatsApp Cloud (with the
 * verify token Meta's subscription check needs), the mailbox for email channels; undefined for sandbox SMS and
 * WhatsApp channels.
 */
export function inboundView(
  channel: Channel,
  publicBaseUrl: string,
): { url: string; verifyToken?: string } | { address: string } | undefined {
  if (channel.type === 'email') return { address: channel.address };
  const base = publicBaseUrl.replace(/\/+$/, '');
  if (channel.provider.kind === 'twilio') return { url: `${base}/inbound/twilio/${channel.channelId}` };
  if (channel.provider.kind === 'whatsapp-cloud')
    return {
      url: `${base}/inbound/whatsapp/${channel.channelId}`,
      ...(channel.provider.verifyToken ? { verifyToken: channel.provider.verifyToken } : {}),
    };
  return undefined;
}
