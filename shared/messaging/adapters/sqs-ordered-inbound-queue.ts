import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SQS_CALL_TIMEOUT_MS, SQS_MAX_BATCH_ENTRIES } from '../../kernel/aws/sqs-client.ts';
import { type OrderedReport, orderedDeduplicationId, orderedGroupId } from '../inbound/order.ts';

/**
 * The ordered lane (the FIFO `inboundOrdered` queue): each copy in its channel and contact's message group, with a
 * deduplication id fixed by its bytes. Copies of one callback go to different groups, so they are sent at once.
 */
export class SqsOrderedInboundQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(copies: readonly OrderedReport[]): Promise<void> {
    await Promise.all(
      copies.map((copy) =>
        this.sqs.send(
          new SendMessageCommand({
            QueueUrl: this.queueUrl,
            MessageBody: JSON.stringify(copy.report),
            MessageGroupId: orderedGroupId(copy.report.channelId, copy.contact),
            MessageDeduplicationId: orderedDeduplicationId(copy),
          }),
          { abortSignal: AbortSignal.timeout(SQS_CALL_TIMEOUT_MS) },
        ),
      ),
    );
  }

  /** Deletions waiting for the call under way to end. */
  private readonly deleting: { receiptHandle: string; done: () => void; failed: (error: unknown) => void }[] = [];
  private deleteUnderWay = false;

  /**
   * Messages received from the lane, deleted (worked). One call at a time: what is asked for meanwhile (the batches of
   * other contacts worked beside this one) leaves together in the next calls, up to 10 a call.
   */
  delete(receiptHandles: readonly string[]): Promise<void> {
    const deleted = receiptHandles.map(
      (receiptHandle) => new Promise<void>((done, failed) => this.deleting.push({ receiptHandle, done, failed })),
    );
    this.deleteNext();
    return Promise.all(deleted).then(() => {});
  }

  private deleteNext(): void {
    if (this.deleteUnderWay || !this.deleting.length) return;
    this.deleteUnderWay = true;
    const batch = this.deleting.splice(0, SQS_MAX_BATCH_ENTRIES);
    this.sqs
      .send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((d, i) => ({ Id: String(i), ReceiptHandle: d.receiptHandle })),
        }),
        { abortSignal: AbortSignal.timeout(SQS_CALL_TIMEOUT_MS) },
      )
      .then(
        () => {
          for (const d of batch) d.done();
        },
        (error: unknown) => {
          for (const d of batch) d.failed(error);
        },
      )
      .finally(() => {
        this.deleteUnderWay = false;
        this.deleteNext();
      });
  }

  /**
   * Messages received from the lane, made visible again after `seconds` each (whole seconds, at least 1: a
   * visibility of 0 makes the local stand-in fail the call after it already released the message). What cannot be
   * changed comes back when its visibility timeout ends, which only delays it.
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
