import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueWorkerDefinition } from '#shared/contract/workers.ts';
import { invokeWithTimeout, lambdaContext } from './lambda-context.ts';
import { signalWork } from './work-signal.ts';

/** A worker's handler: a partial batch response, or nothing when every message succeeded. */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/**
 * Feeds a worker the way a Lambda SQS event source mapping does: long-polls the queue, hands the handler a real
 * `SQSEvent` batch, deletes the records it did not report in `batchItemFailures`, and leaves the failed ones (or the
 * whole batch when the handler throws or times out) to come back when their visibility timeout ends, until the
 * queue's redrive policy moves them to the dead-letter queue.
 *
 * One receive loop per queue, and up to `maxConcurrency` batches in the handler at once: the loop receives again as
 * soon as a batch is handed over, and waits only when every slot is busy. Decision (measured: bench/history/2026-11-send.md
 * and 2026-11-webhooks.md): the first version ran `maxConcurrency` loops each long-polling; every arriving message then woke one idle
 * loop, so batches held one message and each event paid a receive, a delete and a fan-out Query of its own. With one
 * loop, what arrives while a receive or a slot is busy leaves in the next batch, so batches grow with the load
 * (Lambda's pollers do the same: they add pollers only while batches come back full). `batchWindowSeconds` is
 * honoured as on Lambda: a partial batch waits up to that long to fill.
 */
export function startPoller(opts: {
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  worker: QueueWorkerDefinition;
  handler: SqsHandler;
  onError?: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const abort = new AbortController();
  let stopped = false;
  // SQS hands out at most 10 messages per receive; a larger batch (Lambda allows up to 10,000 with a batch window)
  // is gathered from several receives within the window, as Lambda's pollers do.
  const maxBatch = Math.max(1, opts.worker.batchSize);
  const slots = Math.max(1, opts.worker.maxConcurrency);
  const running = new Set<Promise<void>>();

  async function receive(max: number, waitSeconds: number): Promise<Message[]> {
    const out = await opts.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: opts.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return out.Messages ?? [];
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      while (running.size >= slots && !stopped) await Promise.race(running);
      if (stopped) return;
      let messages: Message[];
      try {
        // Idle, the loop waits as Lambda's pollers do (20 s long polls): a message that arrives ends the wait at once,
        // and an idle service no longer asks every queue each second (bench/history/2026-11-test-suite-time.md: the idle CPU).
        messages = await receive(Math.min(10, maxBatch), IDLE_WAIT_SECONDS);
        // A partial batch waits up to the batch window to fill (long polls of 1 s: SQS waits in whole seconds).
        const windowEnds = Date.now() + opts.worker.batchWindowSeconds * 1000;
        while (messages.length && messages.length < maxBatch && Date.now() < windowEnds && !stopped) {
          messages = messages.concat(await receive(Math.min(10, maxBatch - messages.length), 1));
        }
      } catch (error) {
        if (stopped) return;
        opts.onError?.(error);
        await sleep(500);
        continue;
      }
      if (!messages.length) continue;
      signalWork();
      const batch = runBatch(messages).finally(() => running.delete(batch));
      running.add(batch);
    }
  }

  async function runBatch(messages: Message[]): Promise<void> {
    const records = messages.map((m) => toRecord(m, opts.queueArn, opts.region));
    let failed = new Set<string>();
    try {
      const event = { Records: records };
      const result = await invokeWithTimeout(
        () => opts.handler(event, lambdaContext(opts.worker.fn, opts.worker.timeoutSeconds, opts.worker.memoryMb)),
        opts.worker.timeoutSeconds,
        { functionName: opts.worker.fn, event },
      );
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      opts.onError?.(error);
      return; // the whole batch comes back after its visibility timeout
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (!done.length) return;
    for (let i = 0; i < done.length; i += 10) {
      try {
        await opts.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: opts.queueUrl,
            Entries: done.slice(i, i + 10).map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
      } catch (error) {
        opts.onError?.(error);
      }
    }
  }

  const receiving = loop();
  return {
    async stop() {
      stopped = true;
      abort.abort();
      await receiving.catch(() => {});
      await Promise.allSettled([...running]);
    },
  };
}

function toRecord(m: Message, queueArn: string, region: string): SQSRecord {
  const attrs = m.Attributes ?? {};
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attrs.ApproximateReceiveCount ?? '1',
      SentTimestamp: attrs.SentTimestamp ?? String(Date.now()),
      SenderId: attrs.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attrs.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      // FIFO queues: the message's group and place in it, as Lambda hands them over.
      ...(attrs.MessageGroupId ? { MessageGroupId: attrs.MessageGroupId } : {}),
      ...(attrs.SequenceNumber ? { SequenceNumber: attrs.SequenceNumber } : {}),
      ...(attrs.MessageDeduplicationId ? { MessageDeduplicationId: attrs.MessageDeduplicationId } : {}),
    },
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/** The longest long poll SQS allows. */
const IDLE_WAIT_SECONDS = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
