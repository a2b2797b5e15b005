import type { EventMessage } from './event-message.ts';

/** Ports of the event vocabulary: where a published event goes, and where a large body is parked. */

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
