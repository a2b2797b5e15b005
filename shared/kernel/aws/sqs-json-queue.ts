import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * A queue whose messages are one JSON document each, sent one at a time (the `ingest` jobs, the `inbound` raw
 * reports). The `events` queue batches instead: webhook-queues.ts.
 */
export class SqsJsonQueue<T> {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: T): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }), {
      abortSignal: AbortSignal.timeout(10_000),
    });
  }
}
