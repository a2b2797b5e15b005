import type { FunctionAccess } from './access.ts';
import type { QueueKey } from './queues.ts';

/** SQS-triggered and scheduled functions. infra/ wires event sources and schedules; local/ runs pollers and timers. */
export interface QueueWorkerDefinition {
  fn: string;
  queue: QueueKey;
  batchSize: number;
  /** Seconds a batch may wait to fill (Lambda's MaximumBatchingWindowInSeconds). */
  batchWindowSeconds: number;
  timeoutSeconds: number;
  memoryMb: number;
  /**
   * Concurrent batches of the local runner's poller. On AWS the event source's maximum concurrency is the capacity
   * plan's (infra/capacity-plan.ts), sized for the target load; this is its fallback.
   */
  maxConcurrency: number;
  /** What the function touches besides consuming its queue: infra/ grants exactly this and sets the environment. */
  access?: FunctionAccess;
}

export interface ScheduledWorkerDefinition {
  fn: string;
  /** How often it runs on AWS (EventBridge rate, minutes). */
  everyMinutesOnAws: number;
  /**
   * How often the local runner calls it. While its runs find nothing to do the runner waits twice as long each time
   * (up to 30 s), and is back to this pace as soon as a request or a queue batch comes in (local/scheduler.ts).
   */
  everySecondsLocally: number;
  timeoutSeconds: number;
  memoryMb: number;
  /** What the function touches: infra/ grants exactly this (IAM) and sets the matching environment. */
  access?: FunctionAccess;
}

/** What a deliver worker touches (both queues: a recover continuation or a re-sent job may go to either). */
const deliverAccess: FunctionAccess = {
  // gsi3: a webhook's failed deliveries, when a recover goes on here (shared/webhooks/recover.ts).
  table: { read: true, write: true, indexes: ['gsi3'] },
  // events: the webhook notices (`webhook.failing`, `webhook.disabled`), published by the worker that noticed.
  sendTo: ['deliveries', 'deliveriesOrdered', 'events'],
  buckets: { transfer: { read: ['payloads/'], write: ['payloads/'] } },
  secrets: ['secretsKey'],
  // Webhooks delivering to a queue, topic, bus, stream or bucket in the customer's account.
  assumeCustomerRoles: true,
};

/** What an inbound worker touches; `sendTo` names the events queue and the other lane. */
function inboundAccess(sendTo: QueueKey[]): FunctionAccess {
  return {
    table: { read: true, write: true },
    sendTo,
    buckets: { transfer: { read: ['payloads/inbound/', 'media/'], write: ['payloads/', 'media/'] } },
    secrets: ['secretsKey'],
  };
}

export const queueWorkers: QueueWorkerDefinition[] = [
  // Webhooks: events → fan-out (one Query per batch, at most one per event) → one job per webhook → deliver (one HTTP call and one write
  // per attempt). Deliver runs many batches at once: a batch is held by its slowest attempt (up to 15 s), and the
  // endpoint gate keeps one hanging receiver to a few of them (shared/webhooks/endpoint-gate.ts).
  {
    fn: 'fanout',
    queue: 'events',
    batchSize: 10,
    batchWindowSeconds: 0,
    timeoutSeconds: 30,
    memoryMb: 512,
    maxConcurrency: 4,
    access: {
      // write: the event's body, stored once for all its deliveries.
      table: { read: true, write: true },
      sendTo: ['deliveries', 'deliveriesOrdered'],
      // A webhook filter on an event whose body is parked in S3 reads it.
      buckets: { transfer: { read: ['payloads/'] } },
      secrets: ['secretsKey'],
    },
  },
  {
    fn: 'deliver',
    queue: 'deliveries',
    batchSize: 10,
    batchWindowSeconds: 0,
    timeoutSeconds: 40,
    memoryMb: 512,
    maxConcurrency: 20,
    access: deliverAccess,
  },
  // Webhooks with `ordering: "conversation"`: the same use case on the FIFO queue, one message group
  // per webhook and conversation. Batches are spread over groups, so the concurrency works across conversations.
  {
    fn: 'deliver-ordered',
    queue: 'deliveriesOrdered',
    batchSize: 10,
    batchWindowSeconds: 0,
    timeoutSeconds: 40,
    memoryMb: 512,
    maxConcurrency: 20,
    access: deliverAccess,
  },
  // Knowledge ingestion: a batch groups uploads per bot so each bot gets one index segment per batch.
  // Sized for a 100-page scan read with OCR as the extract route does (Textract, 8 pages at a time, 200 DPI renders):
  // about 0.3-0.5 s of rendering per page on ~1.2 vCPU (2048 MB) plus Textract's 1-2 s, so ~1-2 minutes; the PDF
  // read gets 480 s (shared/knowledge/pdf-reader.ts); the rest of the 600 s is left for the batch's segment.
  // 2,048 MB is for OCR and the batch's segment, built in memory (20 files of up to 25 MB): merges stream their
  // inputs and output by range whatever their size (512 MB at most merging 1 GB of text, bench/knowledge-gb.ts).
  // Batches of up to 20 (gathered within the 1 s window): each batch is one index segment and a few fixed round trips.
  // 4 batches at once: ingestion keeps pace with 8 concurrent uploaders (bench/history/2026-11-knowledge-at-scale.md);
  // batches of one
  // bot never conflict (each adds its own segment), and a PDF's OCR still runs one PDF per batch at a time.
  {
    fn: 'ingest',
    queue: 'ingest',
    batchSize: 20,
    batchWindowSeconds: 1,
    timeoutSeconds: 600,
    memoryMb: 2048,
    maxConcurrency: 4,
    access: {
      textract: true,
      table: { read: true, write: true },
      buckets: { knowledge: { read: ['bots/'], write: ['bots/'], delete: ['bots/'] } },
      bedrock: { invoke: true },
    },
  },
  // Channel ingress: raw provider reports → normalised, deduplicated, forward-only → the `events` queue. The FIFO
  // lane takes every report in acknowledgement order, one contact's one after another (a batch is worked group by
  // group, groups at once). A FIFO receive hands over as many of one group's messages as it can, so a batch is often
  // one contact's, worked in sequence: the reports in flight come from more batches at once (40, where the unordered
  // lane's 4 batches worked all of their 10 at once; fewer halved the throughput over 100 contacts here).
  {
    fn: 'inbound-ordered',
    queue: 'inboundOrdered',
    batchSize: 10,
    batchWindowSeconds: 0,
    // Media: up to 10 items of 16 MB per message, 30 s each, fetched once and stored here.
    timeoutSeconds: 120,
    memoryMb: 1024,
    maxConcurrency: 40,
    access: inboundAccess(['events', 'inbound']),
  },
  // The unordered lane: SES's notifications forwarded to the FIFO lane, and reports set aside from it.
  {
    fn: 'inbound',
    queue: 'inbound',
    batchSize: 10,
    batchWindowSeconds: 0,
    timeoutSeconds: 120,
    memoryMb: 1024,
    maxConcurrency: 4,
    access: inboundAccess(['events', 'inboundOrdered']),
  },
  // Batch items and scheduled sends at their channel's pace: a batch's jobs reserve their instants on the channel's
  // pace item together, wait up to 2 s for them in the worker, and leave; a later turn waits on the queue.
  {
    fn: 'outbound',
    queue: 'outbound',
    batchSize: 10,
    batchWindowSeconds: 0,
    timeoutSeconds: 60,
    memoryMb: 512,
    maxConcurrency: 40,
    access: {
      table: { read: true, write: true },
      // outbound: a job whose turn is further off than the worker waits is sent again carrying it (work-outbound.ts).
      sendTo: ['events', 'outbound'],
      buckets: { transfer: { write: ['payloads/'] } },
      secrets: ['secretsKey'],
      ses: { send: true },
    },
  },
];

export const scheduledWorkers: ScheduledWorkerDefinition[] = [
  {
    fn: 'credit-sweeper',
    everyMinutesOnAws: 1,
    everySecondsLocally: 5,
    timeoutSeconds: 60,
    memoryMb: 512,
    // gsi3: the sweep's shards; gsi1: the previous layout's one key, read until it is empty.
    access: { table: { read: true, write: true, indexes: ['gsi1', 'gsi3'] } },
  },
  // Events whose change was written but never published (a crash in between): published again, same id.
  {
    fn: 'event-sweeper',
    everyMinutesOnAws: 1,
    everySecondsLocally: 5,
    timeoutSeconds: 60,
    // A whole vCPU: draining a backlog is bound by the run's CPU (one conditional write per mark), and an idle run
    // lasts a few Queries.
    memoryMb: 1769,
    // gsi3: the outbox's shards; gsi1: the previous layout's one outbox key, until it is empty.
    access: { table: { read: true, write: true, indexes: ['gsi1', 'gsi3'] }, sendTo: ['events'] },
  },
  // Scheduled sends due within the next few minutes (and what a crash left unqueued) onto the outbound queue.
  {
    fn: 'due-sweeper',
    everyMinutesOnAws: 1,
    everySecondsLocally: 2,
    timeoutSeconds: 60,
    memoryMb: 512,
    access: { table: { read: true, write: true }, sendTo: ['outbound'] },
  },
];
