import {
  ChangeMessageVisibilityBatchCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { messageGroupIdOf } from '../../events/index.ts';
import {
  SQS_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS,
  SQS_MAX_BATCH_BYTES as MAX_BATCH_BYTES,
  SQS_MAX_BATCH_ENTRIES as MAX_BATCH_ENTRIES,
} from '../../kernel/aws/sqs-client.ts';
import { failpoint } from '../../kernel/failpoints.ts';
import type { DeliveryJob } from '../model.ts';
import type { DeliveryQueue, PostponedMessage, QueuedJob } from '../ports.ts';

/**
 * Whole seconds, at least 1: SQS takes integers, and a visibility of 0 makes fauxqs 2.4 (with persistence on) fail
 * the call after it already released the message, so the SDK's retry then reports an invalid receipt handle.
 */
function visibilitySeconds(seconds: number): number {
  return Math.min(43_200, Math.max(1, Math.round(seconds)));
}

/** Calls to the FIFO queue under way at once; each carries its own message groups, in order. */
const FIFO_LANES = 4;

type Entry = { index: number; entry: SendMessageBatchRequestEntry; group?: string };

/**
 * The FIFO message group of an ordered job: its webhook and the event's ordering key, so one conversation's
 * deliveries to one webhook start one after another and nothing else waits for them.
 */
export function deliveryGroupOf(job: Pick<DeliveryJob, 'integrationId' | 'orderKey'>): string {
  return messageGroupIdOf(job.integrationId, job.orderKey ?? 'project');
}

/**
 * The deduplication id of an ordered job: a fan-out that runs twice within 5 minutes queues its job once; a manual
 * retry or recover is told apart by the attempts it follows.
 */
function deduplicationIdOf(job: DeliveryJob): string {
  return `${job.deliveryId}.${job.attemptsBefore}.${job.manual ? 'm' : 'a'}`;
}

/**
 * Delivery jobs on the deliveries queues: an unordered job on the standard `deliveries` queue (batches of 10 entries
 * or 240 KB, sent concurrently, with delays), an ordered one (`job.ordered`) on the FIFO `deliveriesOrdered` queue in
 * its group. FIFO batches go out in order per group: the groups are spread over {@link FIFO_LANES} lanes, each lane
 * sending its batches one after another, and once an entry of a group is refused no later entry of that group in
 * the call is sent (it would overtake it). FIFO queues take no per-message delay: an ordered job is never re-sent
 * with one (`deliver.ts` postpones it in place instead). Retries are postponed in place with ChangeMessageVisibility.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly orderedQueueUrl?: string,
  ) {}

  async enqueue(jobs: QueuedJob[]): Promise<Set<number>> {
    const failed = new Set<number>();
    const standard: Entry[] = [];
    const lanes: Entry[][] = Array.from({ length: FIFO_LANES }, () => []);
    jobs.forEach((queued, index) => {
      const body = JSON.stringify(queued.job satisfies DeliveryJob);
      if (queued.job.ordered && this.orderedQueueUrl) {
        const group = deliveryGroupOf(queued.job);
        lanes[laneOf(group)]!.push({
          index,
          group,
          entry: {
            Id: String(index),
            MessageBody: body,
            MessageGroupId: group,
            MessageDeduplicationId: deduplicationIdOf(queued.job),
          },
        });
        return;
      }
      const delay = Math.min(900, Math.max(0, Math.round(queued.delaySeconds ?? 0)));
      standard.push({
        index,
        entry: { Id: String(index), MessageBody: body, ...(delay ? { DelaySeconds: delay } : {}) },
      });
    });
    await Promise.all([
      ...batchesOf(standard).map((batch) => this.sendBatch(this.queueUrl, batch, failed)),
      ...lanes.map(async (lane) => {
        const refusedGroups = new Set<string>();
        for (const batch of batchesOf(lane)) {
          const sendable = batch.filter((b) => !refusedGroups.has(b.group!));
          for (const b of batch) if (refusedGroups.has(b.group!)) failed.add(b.index);
          if (!sendable.length) continue;
          const before = new Set(failed);
          await this.sendBatch(this.orderedQueueUrl!, sendable, failed);
          for (const b of sendable) if (failed.has(b.index) && !before.has(b.index)) refusedGroups.add(b.group!);
        }
      }),
    ]);
    return failed;
  }

  private async sendBatch(queueUrl: string, batch: Entry[], failed: Set<number>): Promise<void> {
    try {
      const out = await this.sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((b) => b.entry) }),
        { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
      );
      for (const f of out.Failed ?? []) failed.add(Number(f.Id));
      // Tests only (local runner): a crash with some of a fan-out's jobs queued and others not.
      failpoint('after-fanout-batch');
    } catch {
      for (const b of batch) failed.add(b.index);
    }
  }

  async postpone(items: PostponedMessage[]): Promise<Set<number>> {
    const failed = new Set<number>();
    const chunks: { url: string; items: { index: number; receiptHandle: string; seconds: number }[] }[] = [];
    items.forEach((item, index) => {
      const url = item.ordered && this.orderedQueueUrl ? this.orderedQueueUrl : this.queueUrl;
      let chunk = chunks.findLast((c) => c.url === url);
      if (!chunk || chunk.items.length === MAX_BATCH_ENTRIES) {
        chunk = { url, items: [] };
        chunks.push(chunk);
      }
      chunk.items.push({ index, receiptHandle: item.receiptHandle, seconds: item.seconds });
    });
    await Promise.all(
      chunks.map(async (chunk) => {
        try {
          const out = await this.sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: chunk.url,
              Entries: chunk.items.map((c) => ({
                Id: String(c.index),
                ReceiptHandle: c.receiptHandle,
                VisibilityTimeout: visibilitySeconds(c.seconds),
              })),
            }),
            { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
          );
          for (const f of out.Failed ?? []) failed.add(Number(f.Id));
        } catch {
          for (const c of chunk.items) failed.add(c.index);
        }
      }),
    );
    return failed;
  }
}

/** Up to 10 entries or 240 KB per batch, in order. */
function batchesOf(entries: Entry[]): Entry[][] {
  const batches: Entry[][] = [];
  let current: Entry[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = Buffer.byteLength(e.entry.MessageBody!);
    if (current.length === MAX_BATCH_ENTRIES || (current.length && bytes + size > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length) batches.push(current);
  return batches;
}

function laneOf(group: string): number {
  let h = 0;
  for (let i = 0; i < group.length; i++) h = (h * 31 + group.charCodeAt(i)) | 0;
  return Math.abs(h) % FIFO_LANES;
}
