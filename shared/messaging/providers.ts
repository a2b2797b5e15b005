import type { Channel, ProviderKind } from './channel.ts';
import type { SendPayload } from './payloads.ts';

/** What a provider is asked to send: the validated payload, from the channel (its address and settings). */
export interface OutboundMessage {
  channel: Channel;
  message: SendPayload;
  /** Epoch ms past which nothing may still be waiting on the provider (each call also has its own deadline). */
  deadline: number;
  /**
   * A paced send's slot: asked by the provider at the last moment before the send's first request goes out. Without
   * it (a synchronous send) nothing is asked.
   */
  departure?: DepartureGate;
}

/**
 * When a paced send may leave. Its slot lets it through within a few milliseconds of the slot's stamp; what stands
 * between that and the bytes leaving (the request being built, a new connection's handshake, a stalled event loop)
 * would put it beside the slot's next send. So the provider asks {@link onTime} at the last moment, synchronously,
 * with nothing between the answer and handing the request to the network; when late, it waits for {@link again}
 * (the slot taken again, later) and asks once more.
 */
export interface DepartureGate {
  onTime(): boolean;
  /** Takes the send's slot again for a new departure; rejects with {@link LateDepartureError} when it gives up. */
  again(): Promise<void>;
}

/**
 * Calls `leave` once the gate lets the send through (at once without a gate), synchronously after the gate's last
 * answer: nothing comes between (the HTTP client makes its request there; SES's SDK and SMTP call their client, whose
 * own steps then come before the bytes). A late send takes its slot again first; a deadline (`giveUpAt`, epoch ms)
 * passing meanwhile is a {@link LateDepartureError}: nothing left, so the send is given back, not failed.
 */
export async function depart<T = void>(
  gate: DepartureGate | undefined,
  leave: () => T | Promise<T> = () => undefined as T,
  giveUpAt = Number.POSITIVE_INFINITY,
): Promise<T> {
  while (gate && !gate.onTime()) await beforeDeadline(gate.again(), giveUpAt);
  return leave();
}

function beforeDeadline(again: Promise<void>, giveUpAt: number): Promise<void> {
  if (!Number.isFinite(giveUpAt)) return again;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LateDepartureError("the call's deadline passed while the send waited for its slot")),
      Math.max(0, giveUpAt - Date.now()),
    );
  });
  return Promise.race([again, deadline]).finally(() => clearTimeout(timer));
}

/**
 * A paced send that found itself late at its slot every time it took it: nothing was sent, and its turn is given back
 * (its claim and charge too; its job comes back shortly). Providers pass it through as it is: it is not their failure.
 */
export class LateDepartureError extends Error {
  override readonly name = 'LateDepartureError';
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
  async send(outbound) {
    await depart(outbound.departure);
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
