import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  SQS_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS,
  SQS_MAX_BATCH_BYTES as MAX_BATCH_BYTES,
  SQS_MAX_BATCH_ENTRIES as MAX_BATCH_ENTRIES,
} from '../../kernel/aws/sqs-client.ts';
import type { EventMessage } from '../event-message.ts';
import type { EventQueue } from '../ports.ts';

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
