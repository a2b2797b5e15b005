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
  /**
   * A FIFO queue (its name ends in `.fifo`, its dead-letter queue is FIFO too): messages of one message group are
   * received in the order they were sent, one group's next message only once the previous one is deleted. Each send
   * names its group and a deduplication id (a repeat within 5 minutes is dropped). On AWS in high-throughput mode
   * (deduplication and the throughput limit per message group).
   */
  fifo?: boolean;
}

export const queues = {
  // FIFO, grouped by conversation (else channel, else project): the fan-out sees one key's events in the order they
  // were accepted, which is what lets an ordered webhook receive them in that order.
  // 30 receives, as deliveries: an event's outbox mark is cleared once the queue has it, so a dead-lettered event
  // reaches no webhook until someone redrives it. Its batch is only ever lost to crashes and throttles (the fan-out
  // parses nothing a customer wrote), and at 5 a run of kills under load dead-lettered events the fan-out held
  // (bench/crash-ledger.ts); a batch that fails every time holds its conversation's events 30 minutes, not 5.
  events: {
    key: 'events',
    localName: 'switchboard-events.fifo',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 30,
    retentionSeconds: 14 * 86400,
    fifo: true,
  },
  deliveries: {
    key: 'deliveries',
    localName: 'switchboard-deliveries',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 30,
    retentionSeconds: 14 * 86400,
  },
  // Deliveries to webhooks with `ordering: "conversation"`: one message group per webhook and conversation, so one
  // key's deliveries start one after another while other keys flow. A delivery waiting for its retry stays in place
  // (postponed, never re-sent), holding back only its group. Receives include those put back without an attempt
  // (the endpoint gate, pacing), hence SQS's highest maxReceiveCount.
  deliveriesOrdered: {
    key: 'deliveriesOrdered',
    localName: 'switchboard-deliveries-ordered.fifo',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 1000,
    retentionSeconds: 14 * 86400,
    fifo: true,
  },
  ingest: {
    key: 'ingest',
    localName: 'switchboard-ingest',
    visibilityTimeoutSeconds: 900,
    maxReceiveCount: 3,
    retentionSeconds: 4 * 86400,
  },
  // What reaches the `inbound` worker unordered: SES's receipt notifications (SNS delivers only to standard queues),
  // which it forwards to `inboundOrdered`, and reports set aside from there after failing at the head of their
  // conversation too often (processed here, out of line).
  inbound: {
    key: 'inbound',
    localName: 'switchboard-inbound',
    // Above the inbound worker's 120 s (media fetched within it).
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionSeconds: 14 * 86400,
  },
  // Raw provider reports (Twilio, WhatsApp Cloud, inbound mail) in the order they were acknowledged: one message
  // group per channel and contact, so one contact's reports are worked one after another and their events published
  // in that order, while other contacts' go on at once. The worker retries a failing report with growing waits and
  // sets it aside on `inbound` after `INBOUND_SET_ASIDE_AFTER` receives; the dead-letter queue only takes what kept
  // killing the worker itself. Receives include those put back untried behind a failing report, hence the margin.
  inboundOrdered: {
    key: 'inboundOrdered',
    localName: 'switchboard-inbound-ordered.fifo',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 30,
    retentionSeconds: 14 * 86400,
    fifo: true,
  },
  // Batch items and scheduled sends, each job one message: sent at its channel's pace by the `outbound` worker. A
  // job waiting for its turn or its time goes back with a visibility change (never a receive counted as a failure
  // by the worker itself), hence the high maxReceiveCount; a message is claimed once, so a repeat sends nothing.
  outbound: {
    key: 'outbound',
    localName: 'switchboard-outbound',
    // Above the worker's 60 s.
    visibilityTimeoutSeconds: 90,
    maxReceiveCount: 1000,
    retentionSeconds: 14 * 86400,
  },
} satisfies Record<string, QueueDefinition>;

export type QueueKey = keyof typeof queues;

export function deadLetterName(q: QueueDefinition): string {
  return q.fifo ? `${q.localName.slice(0, -'.fifo'.length)}-dlq.fifo` : `${q.localName}-dlq`;
}

/** Environment variable that carries a queue's URL into a function (`deliveriesOrdered` → `QUEUE_URL_DELIVERIES_ORDERED`). */
export function queueUrlEnv(key: QueueKey): string {
  return `QUEUE_URL_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}
