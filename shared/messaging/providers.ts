import type { Channel, ProviderKind } from './channel.ts';
import type { SendPayload } from './payloads.ts';

/** What a provider is asked to send: the validated payload, from the channel (its address and settings). */
export interface OutboundMessage {
  channel: Channel;
  message: SendPayload;
  /** Epoch ms past which nothing may still be waiting on the provider (each call also has its own deadline). */
  deadline: number;
}

export interface ProviderReceipt {
  /** The provider's ids of what it accepted (one per WhatsApp message; Twilio's SID; the mail Message-ID). */
  providerMessageIds: string[];
}

/**
 * Sends messages for one provider kind. Every network call it makes has a deadline (10 s by default). It throws
 * {@link ProviderError} when the provider refuses, fails, times out or cannot be reached.
 */
export interface MessageProvider {
  send(outbound: OutboundMessage): Promise<ProviderReceipt>;
}

/** The provider for each kind a channel can name. */
export type MessageProviders = Record<ProviderKind, MessageProvider>;

/**
 * A provider failure, with a message fit for the caller and the message record (what the provider said, never
 * a credential). `sentProviderMessageIds` lists what had already gone out when a multi-part send failed midway.
 */
export class ProviderError extends Error {
  readonly sentProviderMessageIds: string[];
  /** The provider said "too many requests" (HTTP 429 or its own code): nothing was sent, a later try may pass. */
  readonly rateLimited: boolean;
  constructor(
    message: string,
    options: { cause?: unknown; sentProviderMessageIds?: string[]; rateLimited?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.sentProviderMessageIds = options.sentProviderMessageIds ?? [];
    this.rateLimited = options.rateLimited === true && this.sentProviderMessageIds.length === 0;
  }
}

/** The sandbox provider: nothing leaves; the message record written for every send is the channel's outbox. */
export const sandboxProvider: MessageProvider = {
  async send() {
    return { providerMessageIds: [] };
  },
};

/** Milliseconds a single provider call may take: its own limit, cut short by the send's overall deadline. */
export function callTimeoutMs(perCallMs: number, deadline: number, now: number = Date.now()): number {
  return Math.max(1, Math.min(perCallMs, deadline - now));
}

/** Describes a failed HTTP call without secrets: timeout, unreachable, or the status and the provider's words. */
export function describeFetchFailure(provider: string, error: unknown): string {
  const e = error as { name?: string; code?: string } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'ABORT_ERR')
    return `${provider} did not answer in time`;
  if (e?.code === 'EFORBIDDENDESTINATION') return `${provider} is at an address this deployment does not allow`;
  return `${provider} could not be reached`;
}

/** A short, single-line excerpt of a provider's error text. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
