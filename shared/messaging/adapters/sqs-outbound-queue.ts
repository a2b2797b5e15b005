import { ChangeMessageVisibilityBatchCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SQS_CALL_TIMEOUT_MS, SQS_MAX_BATCH_ENTRIES } from '../../kernel/aws/sqs-client.ts';
import { forEachConcurrently } from '../../kernel/shards.ts';
import type { OutboundJob, OutboundQueue } from '../volume/deferred.ts';

/** The `outbound` queue: jobs sent 10 to a SendMessageBatch, each with its own delay; what fails is sent again once. */
export class SqsOutboundQueue implements OutboundQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(jobs: readonly { job: OutboundJob; delaySeconds: number }[]): Promise<void> {
    const chunks: (typeof jobs)[] = [];
    for (let i = 0; i < jobs.length; i += SQS_MAX_BATCH_ENTRIES) chunks.push(jobs.slice(i, i + SQS_MAX_BATCH_ENTRIES));
    await forEachConcurrently(chunks, 25, async (chunk) => {
      let pending = chunk.map((entry, i) => ({ entry, id: String(i) }));
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt === 3) throw new Error(`outbound queue: ${pending.length} jobs not accepted`);
        const out = await this.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: pending.map(({ entry, id }) => ({
              Id: id,
              MessageBody: JSON.stringify(entry.job),
              DelaySeconds: entry.delaySeconds,
            })),
          }),
          { abortSignal: AbortSignal.timeout(SQS_CALL_TIMEOUT_MS) },
        );
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        pending = pending.filter((p) => failed.has(p.id));
      }
    });
  }

  /**
   * Received jobs shown again after `seconds` each (at least 1: a visibility of 0 makes the local stand-in fail the
   * call after it released the message). What cannot be changed comes back at its visibility timeout: only later.
   */
  async postpone(entries: readonly { receiptHandle: string; seconds: number }[]): Promise<void> {
    for (let i = 0; i < entries.length; i += SQS_MAX_BATCH_ENTRIES) {
      await this.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: entries.slice(i, i + SQS_MAX_BATCH_ENTRIES).map((e, j) => ({
            Id: String(j),
            ReceiptHandle: e.receiptHandle,
            VisibilityTimeout: Math.min(43_200, Math.max(1, Math.round(e.seconds))),
          })),
        }),
        { abortSignal: AbortSignal.timeout(SQS_CALL_TIMEOUT_MS) },
      );
    }
  }
}
