import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RecoverContinuation, RecoverMessage } from '../recover.ts';

/** A recover's remaining pages, handed to the deliver worker as a message on the `deliveries` queue. */
export class SqsRecoverContinuation implements RecoverContinuation {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async continueLater(message: RecoverMessage): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}
