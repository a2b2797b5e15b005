/**
 * SQS queues, each with a dead-letter queue. infra/ and local/ both build from this list.
 * `visibilityTimeoutSeconds` must exceed the consuming function's timeout (AWS requires it for event sources).
 */
export interface QueueDefinition {
  /** Key used in code and in environment variable names (`QUEUE_URL_<KEY>`). */
  key: string;
  localName: string;
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  retentionSeconds: number;
}

export const queues = {
  events: {
    key: 'events',
    localName: 'switchboard-events',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 5,
    retentionSeconds: 14 * 86400,
  },
  deliveries: {
    key: 'deliveries',
    localName: 'switchboard-deliveries',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 30,
    retentionSeconds: 14 * 86400,
  },
  ingest: {
    key: 'ingest',
    localName: 'switchboard-ingest',
    visibilityTimeoutSeconds: 900,
    maxReceiveCount: 3,
    retentionSeconds: 4 * 86400,
  },
  // Raw provider reports (Twilio, WhatsApp Cloud, inbound mail) waiting for the `inbound` worker.
  inbound: {
    key: 'inbound',
    localName: 'switchboard-inbound',
    // Above the inbound worker's 120 s (media fetched within it).
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionSeconds: 14 * 86400,
  },
} satisfies Record<string, QueueDefinition>;

export type QueueKey = keyof typeof queues;

export function deadLetterName(q: QueueDefinition): string {
  return `${q.localName}-dlq`;
}

/** Environment variable that carries a queue's URL into a function. */
export function queueUrlEnv(key: QueueKey): string {
  return `QUEUE_URL_${key.toUpperCase()}`;
}
