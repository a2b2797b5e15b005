import { createHash } from 'node:crypto';
import type { EventEnvelope } from './envelope.ts';
import { type EventMessage, orderingKeyOf } from './event-message.ts';

/**
 * Nothing accepted is lost: every state change that produces an event writes, in the same
 * conditional write, the event's id and a "not yet published" mark holding the exact message the events queue will
 * carry. The event is published, then the mark cleared. A retry that finds the change already applied and still
 * marked publishes the mark again (same id, same bytes: receivers dedupe on `webhook-id`); a sweep publishes marks
 * older than a bound (a synchronous route has no queue message to retry after a crash). docs/durability.md walks
 * every step.
 */

/** An event ready to publish: its envelope, and the message the events queue carries (the mark holds the same). */
export interface PreparedEvent {
  envelope: EventEnvelope;
  message: EventMessage;
}

/** What a state change writes with itself: the event's id and the queue message, serialized once. */
export interface OutboxMark {
  eventId: string;
  /** Epoch ms the change was accepted (the sweep waits a bound past it). */
  at: number;
  /** The `EventMessage` as JSON: republished byte for byte. */
  message: string;
  /** The event's order key within its project (`orderingKeyOf`): marks of one key are listed together, in order. */
  orderGroup: string;
}

export function markOf(prepared: PreparedEvent): OutboxMark {
  return {
    eventId: prepared.message.eventId,
    at: prepared.message.acceptedAt,
    message: JSON.stringify(prepared.message),
    orderGroup: `${prepared.message.projectId}/${orderingKeyOf(prepared.message)}`,
  };
}

/** The queue message a mark holds. */
export function messageOfMark(mark: Pick<OutboxMark, 'message'>): EventMessage {
  return JSON.parse(mark.message) as EventMessage;
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The id of the event a change produces: `evt_` + 9 base-36 characters of the time the change was accepted (ids
 * sort by time, so deliveries list newest first) + 11 from a digest of what changed (`status:<messageId>:read`,
 * `received:<messageId>`, a report's idempotency key). Fixed by the change: a retry republishes the id written with
 * the change, never a new one.
 */
export function eventIdFor(changeKey: string, atMs: number): string {
  const time = atMs.toString(36).padStart(9, '0');
  const digest = createHash('sha256').update(changeKey).digest();
  let tail = '';
  for (let i = 0; i < 11; i++) tail += BASE36[digest[i]! % 36];
  return `evt_${time}${tail}`;
}
