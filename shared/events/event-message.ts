import { createHash } from 'node:crypto';
import * as z from '../kernel/validation/zod.ts';
import { WEBHOOK_EVENT_TYPES } from './event-types.ts';

/**
 * What the `events` queue carries (producers → fan-out). Versioned JSON so a deployment can drain old messages
 * after a change.
 */

/** Bodies larger than this go to S3 (transfer bucket, `payloads/`); messages and records carry the key. */
export const LARGE_PAYLOAD_BYTES = 200 * 1024;

/** S3 key of a large event body. */
export const payloadKey = (eventId: string) => `payloads/${eventId}.json`;

const nonEmpty = () => z.string().check(z.minLength(1));

/** The body of an event as it travels: inline, or parked in S3 when large. */
export const payloadBodyFields = {
  /** The serialized envelope: exactly the bytes that are signed and POSTed. */
  body: z.optional(z.string()),
  /** S3 key of the serialized envelope when it is larger than {@link LARGE_PAYLOAD_BYTES}. */
  bodyRef: z.optional(z.string()),
};

/** On the `events` queue: one event, with what the fan-out needs to route it without reading the body. */
export const eventMessageSchema = z.object({
  v: z.literal(1),
  eventId: nonEmpty(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  projectId: nonEmpty(),
  channelId: z.nullable(z.string()),
  onlyIntegrationId: z.optional(z.string()),
  /** Delivered to every webhook that applies but this one (a notice about that webhook goes to the others). */
  exceptIntegrationId: z.optional(z.string()),
  /** The envelope's `data.conversationId` when it is a string: what orders deliveries ({@link orderingKeyOf}). */
  conversationId: z.optional(z.string()),
  /** Epoch ms when the producer accepted the event (latency is measured from here). */
  acceptedAt: z.number(),
  ...payloadBodyFields,
});
export type EventMessage = z.output<typeof eventMessageSchema>;

/**
 * What orders an event among its project's events: its conversation, or for an event without one its channel, or for
 * one without a channel (notices, a general webhook's test) the project itself. The events queue (FIFO) keeps the
 * events of one key in the order they were accepted, and an ordered webhook's deliveries of one key start one after
 * another (docs/reference/webhooks.md, "Pace, order, filters").
 */
export function orderingKeyOf(message: Pick<EventMessage, 'conversationId' | 'channelId'>): string {
  if (message.conversationId !== undefined) return `conversation:${message.conversationId}`;
  if (message.channelId !== null) return `channel:${message.channelId}`;
  return 'project';
}

/**
 * An SQS FIFO message group id for a key under an owner (a project, a webhook): the owner, a dot, then 22 base64url
 * characters of the key's SHA-256, so any key (a conversation id is the producer's text) fits the 128 characters
 * and the characters SQS allows.
 */
export function messageGroupIdOf(owner: string, key: string): string {
  return `${owner}.${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
}
