import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueWorkerDefinition } from '#shared/resources/workers.ts';
import { invokeWithTimeout, lambdaContext } from './lambda-context.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/**
 * Feeds a worker the way a Lambda SQS event source mapping does: long-polls the queue, hands the handler a real
 * `SQSEvent` batch, deletes the records it did not report in `batchItemFailures`, and leaves the failed ones (or the
 * whole batch when the handler throws or times out) to come back when their visibility timeout ends, until the
 * queue's redrive policy moves them to the dead-letter queue. `maxConcurrency` batches run at once.
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

  async function loop(): Promise<void> {
    while (!stopped) {
      let messages: Message[] = [];
      try {
        const out = await opts.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: opts.queueUrl,
            MaxNumberOfMessages: Math.min(10, opts.worker.batchSize),
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = out.Messages ?? [];
      } catch (error) {
        if (stopped) return;
        opts.onError?.(error);
        await sleep(500);
        continue;
      }
      if (!messages.length) continue;
      await runBatch(messages);
    }
  }

  async function runBatch(messages: Message[]): Promise<void> {
    const records = messages.map((m) => toRecord(m, opts.queueArn, opts.region));
    let failed = new Set<string>();
    try {
      const result = await invokeWithTimeout(
        () => opts.handler({ Records: records }, lambdaContext(opts.worker.fn, opts.worker.timeoutSeconds, opts.worker.memoryMb)),
        opts.worker.timeoutSeconds,
      );
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      opts.onError?.(error);
      return; // the whole batch comes back after its visibility timeout
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (!done.length) return;
    try {
      await opts.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: opts.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    } catch (error) {
      opts.onError?.(error);
    }
  }

  const loops = Array.from({ length: Math.max(1, opts.worker.maxConcurrency) }, () => loop());
  return {
    async stop() {
      stopped = true;
      abort.abort();
      await Promise.allSettled(loops);
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
    },
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
