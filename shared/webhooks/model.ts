import { createHash } from 'node:crypto';
import * as z from '../kernel/validation/zod.ts';
import { orderingKeyOf, payloadBodyFields } from '../events/index.ts';

/**
 * The messages the webhook pipeline passes along (events queue → fan-out → deliveries queue → deliver) and the
 * delivery record it keeps. Messages are versioned JSON so a deployment can drain old messages after a change.
 */

const nonEmpty = () => z.string().check(z.minLength(1));

/** On the `deliveries` queue: one event for one webhook. */
export const deliveryJobSchema = z.object({
  v: z.literal(1),
  projectId: nonEmpty(),
  integrationId: nonEmpty(),
  deliveryId: nonEmpty(),
  eventId: nonEmpty(),
  eventType: nonEmpty(),
  acceptedAt: z.number(),
  ...payloadBodyFields,
  /** Attempts made before this message was sent (0 for a new delivery). */
  attemptsBefore: z.number().check(z.int(), z.gte(0)),
  /** A retry asked for by hand: one attempt, no automatic retries after it, may redo a succeeded delivery. */
  manual: z.boolean(),
  /** Times this delivery was put back without an attempt because its endpoint was busy or unreachable. */
  deferrals: z.number().check(z.int(), z.gte(0)),
  /** Epoch ms before which the attempt must not run (waits longer than SQS visibility allows). */
  notBefore: z.optional(z.number()),
  /** The start this job reserved under its webhook's rate limit (epoch ms; shared/webhooks/pacing.ts). */
  pacedStartAt: z.optional(z.number()),
  /** The webhook as the fan-out read it (sealed: it holds the signing secrets), and when (epoch ms). */
  sealedTarget: z.optional(z.string()),
  targetReadAt: z.optional(z.number()),
  /** The event's ordering key (`orderingKeyOf`: conversation, else channel, else project). */
  orderKey: z.optional(z.string()),
  /**
   * The webhook delivers in order: the job travels on the FIFO queue in its webhook and key's group,
   * and waits in place (postponed, never re-sent) until its attempt.
   */
  ordered: z.optional(z.boolean()),
});
export type DeliveryJob = z.output<typeof deliveryJobSchema>;

/** What a delivery job says about the delivery itself, whoever starts the attempt. */
export interface DeliveryOf {
  projectId: string;
  integrationId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  body?: string;
  bodyRef?: string;
  /** The event's ordering key; undefined for deliveries recorded before it was kept. */
  orderKey?: string;
}

/**
 * The one way a delivery job is made: by the fan-out for a new delivery (first attempt, sealed snapshot of the
 * webhook) and by a manual retry (one more attempt after those already recorded, webhook read afresh).
 */
export function deliveryJobFor(
  delivery: DeliveryOf,
  start:
    | { manual: false; acceptedAt: number; sealedTarget: string; targetReadAt: number; ordered: boolean }
    | { manual: true; acceptedAt: number; attemptsBefore: number; ordered: boolean },
): DeliveryJob {
  return {
    v: 1,
    projectId: delivery.projectId,
    integrationId: delivery.integrationId,
    deliveryId: delivery.deliveryId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    acceptedAt: start.acceptedAt,
    ...(delivery.body !== undefined ? { body: delivery.body } : {}),
    ...(delivery.bodyRef !== undefined ? { bodyRef: delivery.bodyRef } : {}),
    attemptsBefore: start.manual ? start.attemptsBefore : 0,
    manual: start.manual,
    deferrals: 0,
    ...(start.manual ? {} : { sealedTarget: start.sealedTarget, targetReadAt: start.targetReadAt }),
    ...(delivery.orderKey !== undefined ? { orderKey: delivery.orderKey } : {}),
    ...(start.ordered ? { ordered: true } : {}),
  };
}

/**
 * A body up to this size stays in each delivery record: the record (about 0.45 KB without it) still takes one write
 * unit, and storing it apart would cost a write per event for nothing. A larger body is stored once per event by the
 * fan-out (`EventBodies`), so a record never grows with its event, for every webhook and every attempt.
 */
export const INLINE_BODY_MAX_BYTES = 512;

/** Whether an event's inline body is stored once per event rather than in each of its delivery records. */
export function bodyStoredOncePerEvent(body: string): boolean {
  return body.length > INLINE_BODY_MAX_BYTES || Buffer.byteLength(body) > INLINE_BODY_MAX_BYTES;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** One attempt as the deliveries list shows it. `at` is ISO 8601. */
export interface DeliveryAttempt {
  at: string;
  statusCode?: number;
  durationMs: number;
  error?: string;
}

/** A delivery: one event for one webhook, with every attempt. */
export interface DeliveryRecord {
  deliveryId: string;
  projectId: string;
  integrationId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Epoch ms of the next automatic attempt, while pending. */
  nextAttemptAt?: number;
  body?: string;
  bodyRef?: string;
  /** The event's ordering key, kept with the first attempt (a manual retry of an ordered webhook queues by it). */
  orderKey?: string;
}

/**
 * The delivery of one event to one webhook always has the same id, so a fan-out that runs twice (SQS delivers at
 * least once) writes the same record. The event id's time prefix comes first: deliveries sort by event time.
 */
export function deliveryIdFor(eventId: string, integrationId: string): string {
  const eventPart = eventId.startsWith('evt_') ? eventId.slice(4) : eventId;
  const webhookPart = createHash('sha256')
    .update(integrationId)
    .digest('base64url')
    .replace(/[-_]/g, '')
    .slice(0, 6)
    .toLowerCase();
  return `dlv_${eventPart}${webhookPart}`;
}

/**
 * The ordering key of a recorded delivery (a manual retry or a recover of an ordered webhook queues it under that
 * key): kept on the record with its first attempt; for a record from before, read from its stored body.
 */
export function orderKeyOfRecord(record: Pick<DeliveryRecord, 'orderKey' | 'body'>): string {
  if (record.orderKey !== undefined) return record.orderKey;
  try {
    const envelope = JSON.parse(record.body ?? 'null') as {
      channel?: { id?: unknown };
      data?: { conversationId?: unknown };
    };
    const conversationId = envelope?.data?.conversationId;
    const channelId = envelope?.channel?.id;
    return orderingKeyOf({
      ...(typeof conversationId === 'string' ? { conversationId } : {}),
      channelId: typeof channelId === 'string' ? channelId : null,
    });
  } catch {
    return 'project';
  }
}

/** The contract's view of a delivery (`GET …/deliveries`). */
export function deliveryView(record: DeliveryRecord) {
  return {
    deliveryId: record.deliveryId,
    eventId: record.eventId,
    eventType: record.eventType,
    status: record.status,
    attempts: record.attempts,
    ...(record.status === 'pending' && record.nextAttemptAt !== undefined
      ? { nextAttemptAt: new Date(record.nextAttemptAt).toISOString() }
      : {}),
  };
}
