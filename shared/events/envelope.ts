/**
 * Events of a project's channels, as webhooks receive them (docs/reference/events.md): the envelope, what a producer
 * gives, and the ids. Producers (the send endpoint, `POST /projects/{p}/events`, `/test`) call
 * `EventPublisher.publish` (./ports.ts), which puts the event on the `events` queue and returns at once; the fan-out
 * worker routes it to the webhooks. The list of event types lives in `event-types.ts` (the console bundles it).
 */
import { randomBytes } from 'node:crypto';
import type { WebhookEventType } from './event-types.ts';

/** The channel an event happened on. */
export interface EventChannel {
  id: string;
  type: string;
  address: string;
}

/** The body POSTed to every webhook. */
export interface EventEnvelope {
  id: string;
  type: WebhookEventType;
  /** ISO 8601, when the event was accepted. */
  timestamp: string;
  projectId: string;
  companyId: number;
  /** Null only for a `webhook.test` sent to a general webhook. */
  channel: EventChannel | null;
  data: Record<string, unknown>;
}

/** What a producer gives; the publisher assigns the id and the timestamp. */
export interface PublishEventInput {
  type: WebhookEventType;
  projectId: string;
  companyId: number;
  channel: EventChannel | null;
  data: Record<string, unknown>;
  /** Deliver to this webhook only, whatever its filter (`POST /integrations/{i}/test`). */
  onlyIntegrationId?: string;
  /** Deliver to every webhook that applies but this one (a notice about that webhook). */
  exceptIntegrationId?: string;
}

/** What fixes an event's id: what changed, and when the change was accepted. */
export interface EventIdentity {
  /** `received:<messageId>`, `status:<messageId>:<status>`, `sent:<messageId>`, `report:<scope>:<key>`... */
  key: string;
  /** When the change was accepted; default now. */
  at?: Date;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * `evt_` + 9 base-36 characters of the epoch milliseconds + 11 random ones (~57 bits): ids sort by time as text,
 * so the deliveries derived from them list newest first with one Query.
 */
export function newEventId(nowMs: number = Date.now()): string {
  const time = nowMs.toString(36).padStart(9, '0');
  const bytes = randomBytes(11);
  let random = '';
  for (const b of bytes) random += BASE36[b % 36];
  return `evt_${time}${random}`;
}

/** The envelope of a new event. */
export function buildEnvelope(input: PublishEventInput, id: string, at: Date): EventEnvelope {
  return {
    id,
    type: input.type,
    timestamp: at.toISOString(),
    projectId: input.projectId,
    companyId: input.companyId,
    channel: input.channel,
    data: input.data,
  };
}
