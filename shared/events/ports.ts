import type { EventEnvelope, EventIdentity, PublishEventInput } from './envelope.ts';
import type { EventMessage } from './event-message.ts';
import type { PreparedEvent } from './outbox.ts';

/**
 * Ports of the event vocabulary: the publisher producers call, where a published event goes, and where a large body
 * is parked.
 */

/**
 * Emits events toward the project's webhooks. `publish` resolves once the event is durably queued (so nothing
 * accepted is lost); delivery happens later, in the workers. It rejects when the queue cannot be reached:
 * a producer that must not fail because of webhooks (the send endpoint) catches and logs.
 */
export interface EventPublisher {
  /**
   * Queues an event that no state change of ours records (a channel back end's report, a test event). With
   * `identity`, its id is fixed by it (an Idempotency-Key and when it was first seen): a retried request publishes the
   * same id.
   */
  publish(input: PublishEventInput, identity?: EventIdentity): Promise<EventEnvelope>;
  /**
   * The event of a state change, ready to publish: id fixed by `identity`, envelope serialized once, a large body
   * parked in S3. The change writes `markOf(prepared)` with itself, then calls `send`, then clears the mark.
   */
  prepare(input: PublishEventInput, identity: EventIdentity): Promise<PreparedEvent>;
  /** Puts a prepared (or marked) event on the events queue. */
  send(message: EventMessage): Promise<void>;
}

/** The `events` queue. */
export interface EventQueue {
  send(message: EventMessage): Promise<void>;
}

/** Large bodies (over 200 KB) live in S3; messages and records carry the key. */
export interface PayloadStore {
  put(key: string, body: string): Promise<void>;
  /** Undefined when the object is gone (expired by the bucket's lifecycle). */
  get(key: string): Promise<string | undefined>;
}
