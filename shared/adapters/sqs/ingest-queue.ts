import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { IngestJob, IngestQueue } from '../../knowledge/knowledge-files.ts';

/** Ingest jobs on the `ingest` queue, one message each (JSON). */
export class SqsIngestQueue implements IngestQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(job: IngestJob): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(job) }), {
      abortSignal: AbortSignal.timeout(10_000),
    });
  }
}
