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
  /** Epoch ms when the producer accepted the event (latency is measured from here). */
  acceptedAt: z.number(),
  ...payloadBodyFields,
});
export type EventMessage = z.output<typeof eventMessageSchema>;
