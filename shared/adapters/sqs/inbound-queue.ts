import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { InboundReport } from '../../messaging/inbound/report.ts';

/** Raw provider reports on the `inbound` queue, one message each (JSON). */
export class SqsInboundQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(report: InboundReport): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(report) }), {
      abortSignal: AbortSignal.timeout(10_000),
    });
  }
}
