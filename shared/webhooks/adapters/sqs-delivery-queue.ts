import {
  ChangeMessageVisibilityBatchCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  SQS_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS,
  SQS_MAX_BATCH_BYTES as MAX_BATCH_BYTES,
  SQS_MAX_BATCH_ENTRIES as MAX_BATCH_ENTRIES,
} from '../../kernel/aws/sqs-client.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import type { DeliveryJob } from '../model.ts';
import type { DeliveryQueue, QueuedJob } from '../ports.ts';

/**
 * Whole seconds, at least 1: SQS takes integers, and a visibility of 0 makes fauxqs 2.4 (with persistence on) fail
 * the call after it already released the message, so the SDK's retry then reports an invalid receipt handle.
 */
function visibilitySeconds(seconds: number): number {
  return Math.min(43_200, Math.max(1, Math.round(seconds)));
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
          // Tests only (local runner): a crash with some of a fan-out's jobs queued and others not.
          failpoint('after-fanout-batch');
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
