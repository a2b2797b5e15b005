import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EventMessage } from '#shared/webhooks/model.ts';
import type { EventQueue } from '#shared/webhooks/ports.ts';

/** SQS takes at most 10 messages per SendMessageBatch (and 256 KiB: events here are at most ~40 KB each). */
const MAX_BATCH = 10;
const MAX_BATCH_BYTES = 240 * 1024;
const CALL_TIMEOUT_MS = 10_000;

interface Pending {
  body: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The `events` queue for the send endpoint, with opportunistic batching: with no call in flight an event is sent
 * at once (one request at a time, as on Lambda, pays nothing extra); events that arrive while a call is in flight
 * leave together in the next SendMessageBatch. Under load in one process (the local runner) that is one SQS call
 * per up to 10 sends instead of one per send. Each `send` still resolves only once its own event is queued.
 */
export function makeBatchingEventQueue(sqs: SQSClient, queueUrl: string): EventQueue {
  const waiting: Pending[] = [];
  let inFlight = false;

  function nextBatch(): Pending[] {
    const batch: Pending[] = [];
    let bytes = 0;
    while (waiting.length && batch.length < MAX_BATCH) {
      const size = Buffer.byteLength(waiting[0]!.body);
      if (batch.length && bytes + size > MAX_BATCH_BYTES) break;
      bytes += size;
      batch.push(waiting.shift()!);
    }
    return batch;
  }

  async function drain(): Promise<void> {
    inFlight = true;
    try {
      while (waiting.length) {
        const batch = nextBatch();
        try {
          if (batch.length === 1) {
            await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: batch[0]!.body }), { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
            batch[0]!.resolve();
            continue;
          }
          const out = await sqs.send(
            new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((p, i) => ({ Id: String(i), MessageBody: p.body })) }),
            { abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
          );
          const failed = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
          batch.forEach((p, i) => {
            const failure = failed.get(String(i));
            if (failure) p.reject(new Error(`SQS refused the event: ${failure.Code ?? 'unknown'}`));
            else p.resolve();
          });
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      inFlight = false;
    }
  }

  return {
    send(message: EventMessage): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ body: JSON.stringify(message), resolve, reject });
        if (!inFlight) void drain();
      });
    },
  };
}
