import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  SQS_CALL_TIMEOUT_MS as CALL_TIMEOUT_MS,
  SQS_MAX_BATCH_BYTES as MAX_BATCH_BYTES,
  SQS_MAX_BATCH_ENTRIES as MAX_BATCH_ENTRIES,
} from '../../kernel/aws/sqs-client.ts';
import { type EventMessage, messageGroupIdOf, orderingKeyOf } from '../event-message.ts';
import type { EventQueue } from '../ports.ts';

/**
 * Events on the `events` queue. On a FIFO queue (its URL ends in `.fifo`, as the contract's `events` queue does)
 * each event goes to its key's message group (`orderingKeyOf`: conversation, else channel, else project, under its
 * project) with its event id as the deduplication id: one key's events reach the fan-out in the order they were
 * sent, and an event published twice within 5 minutes (a retry that finds its mark still pending) is queued once. A send goes out at once when the queue client is idle; events published while
 * `maxCallsInFlight` calls are already under way wait for the next call and leave together in one
 * SendMessageBatch (up to 10 or 240 KB). On Lambda a container serves one request at a time, so every event goes
 * alone; in a process serving many requests at once (the local runner) this saves most of the calls.
 */
interface Waiting {
  body: string;
  size: number;
  fifo?: { MessageGroupId: string; MessageDeduplicationId: string };
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SqsEventQueue implements EventQueue {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  /** FIFO groups with a call under way (how many of their events it carries). */
  private readonly groupsInFlight = new Map<string, number>();
  private readonly fifo: boolean;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly maxCallsInFlight = 4,
  ) {
    this.fifo = queueUrl.endsWith('.fifo');
  }

  send(message: EventMessage): Promise<void> {
    const body = JSON.stringify(message);
    const fifo = this.fifo
      ? {
          MessageGroupId: messageGroupIdOf(message.projectId, orderingKeyOf(message)),
          MessageDeduplicationId: message.eventId,
        }
      : undefined;
    return new Promise((resolve, reject) => {
      this.waiting.push({ body, size: Buffer.byteLength(body), fifo, resolve, reject });
      this.flush();
    });
  }

  /**
   * Sends what waits, in calls of up to 10. On a FIFO queue an event whose group has a call under way waits for the
   * next one (calls run concurrently and could land out of order), and so does every later event of that group.
   */
  private flush(): void {
    while (this.inFlight < this.maxCallsInFlight && this.waiting.length) {
      const batch: Waiting[] = [];
      const held = new Set<string>();
      let bytes = 0;
      for (let i = 0; i < this.waiting.length && batch.length < MAX_BATCH_ENTRIES; ) {
        const next = this.waiting[i]!;
        const group = next.fifo?.MessageGroupId;
        if (group !== undefined && (this.groupsInFlight.has(group) || held.has(group))) {
          held.add(group);
          i++;
          continue;
        }
        if (batch.length && bytes + next.size > MAX_BATCH_BYTES) break;
        this.waiting.splice(i, 1);
        bytes += next.size;
        batch.push(next);
      }
      if (!batch.length) return;
      const groups = batch.flatMap((b) => (b.fifo ? [b.fifo.MessageGroupId] : []));
      for (const g of groups) this.groupsInFlight.set(g, (this.groupsInFlight.get(g) ?? 0) + 1);
      this.inFlight++;
      this.sendBatch(batch).finally(() => {
        for (const g of groups) {
          const left = this.groupsInFlight.get(g)! - 1;
          if (left) this.groupsInFlight.set(g, left);
          else this.groupsInFlight.delete(g);
        }
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async sendBatch(batch: Waiting[]): Promise<void> {
    try {
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((b, i) => ({ Id: String(i), MessageBody: b.body, ...b.fifo })),
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
