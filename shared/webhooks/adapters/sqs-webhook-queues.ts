import {
  ChangeMessageVisibilityBatchCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeliveryJob, EventMessage } from '../model.ts';
import type { DeliveryQueue, EventQueue, QueuedJob } from '../ports.ts';

/** SQS allows 10 entries and 256 KiB per batch; keep a margin for attribute overhead. */
const MAX_BATCH_ENTRIES = 10;
const MAX_BATCH_BYTES = 240 * 1024;
const CALL_TIMEOUT_MS = 10_000;

/**
 * Whole seconds, at least 1: SQS takes integers, and a visibility of 0 makes fauxqs 2.4 (with persistence on) fail
 * the call after it already released the message, so the SDK's retry then reports an invalid receipt handle.
 */
function visibilitySeconds(seconds: number): number {
  return Math.min(43_200, Math.max(1, Math.round(seconds)));
}

/**
 * Events on the `events` queue. A send goes out at once when the queue client is idle; events published while
 * `maxCallsInFlight` calls are already under way wait for the next call and leave together in one
 * SendMessageBatch (up to 10 or 240 KB). On Lambda a container serves one request at a time, so every event goes
 * alone; in a process serving many requests at once (the local runner) this saves most of the calls.
 */
export class SqsEventQueue implements EventQueue {
  private readonly waiting: { body: string; size: number; resolve: () => void; reject: (error: unknown) => void }[] =
    [];
  private inFlight = 0;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly maxCallsInFlight = 4,
  ) {}

  send(message: EventMessage): Promise<void> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      this.waiting.push({ body, size: Buffer.byteLength(body), resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxCallsInFlight && this.waiting.length) {
      const batch = [this.waiting.shift()!];
      let bytes = batch[0]!.size;
      while (
        batch.length < MAX_BATCH_ENTRIES &&
        this.waiting.length &&
        bytes + this.waiting[0]!.size <= MAX_BATCH_BYTES
      ) {
        const next = this.waiting.shift()!;
        bytes += next.size;
        batch.push(next);
      }
      this.inFlight++;
      this.sendBatch(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async sendBatch(
    batch: { body: string; resolve: () => void; reject: (error: unknown) => void }[],
  ): Promise<void> {
    try {
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((b, i) => ({ Id: String(i), MessageBody: b.body })),
        }),
        { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
      );
      const failed = new Map((out.Failed ?? []).map((f) => [Number(f.Id), f]));
      batch.forEach((b, i) => {
        const failure = failed.get(i);
        if (failure) b.reject(new Error(`SQS refused the event: ${failure.Code ?? 'unknown'}`));
        else b.resolve();
      });
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
}

/**
 * Delivery jobs on the `deliveries` queue: sent in batches (10 entries or 240 KB, whichever comes first), and
 * postponed in place with ChangeMessageVisibility for retries.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(jobs: QueuedJob[]): Promise<Set<number>> {
    const failed = new Set<number>();
    const batches: { index: number; entry: SendMessageBatchRequestEntry }[][] = [];
    let current: { index: number; entry: SendMessageBatchRequestEntry }[] = [];
    let bytes = 0;
    jobs.forEach((queued, index) => {
      const body = JSON.stringify(queued.job satisfies DeliveryJob);
      const size = Buffer.byteLength(body);
      if (current.length === MAX_BATCH_ENTRIES || (current.length && bytes + size > MAX_BATCH_BYTES)) {
        batches.push(current);
        current = [];
        bytes = 0;
      }
      const delay = Math.min(900, Math.max(0, Math.round(queued.delaySeconds ?? 0)));
      current.push({
        index,
        entry: { Id: String(index), MessageBody: body, ...(delay ? { DelaySeconds: delay } : {}) },
      });
      bytes += size;
    });
    if (current.length) batches.push(current);
    await Promise.all(
      batches.map(async (batch) => {
        try {
          const out = await this.sqs.send(
            new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch.map((b) => b.entry) }),
            {
              abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS),
            },
          );
          for (const f of out.Failed ?? []) failed.add(Number(f.Id));
        } catch {
          for (const b of batch) failed.add(b.index);
        }
      }),
    );
    return failed;
  }

  async postpone(items: { receiptHandle: string; seconds: number }[]): Promise<Set<number>> {
    const failed = new Set<number>();
    const chunks: { index: number; receiptHandle: string; seconds: number }[][] = [];
    items.forEach((item, index) => {
      if (!chunks.length || chunks.at(-1)!.length === MAX_BATCH_ENTRIES) chunks.push([]);
      chunks.at(-1)!.push({ index, ...item });
    });
    await Promise.all(
      chunks.map(async (chunk) => {
        try {
          const out = await this.sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: this.queueUrl,
              Entries: chunk.map((c) => ({
                Id: String(c.index),
                ReceiptHandle: c.receiptHandle,
                VisibilityTimeout: visibilitySeconds(c.seconds),
              })),
            }),
            { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
          );
          for (const f of out.Failed ?? []) failed.add(Number(f.Id));
        } catch {
          for (const c of chunk) failed.add(c.index);
        }
      }),
    );
    return failed;
  }
}
