import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningQueuesAndBuckets, startQueuesAndBuckets } from '#test/support/queues-and-buckets.ts';

/**
 * The SQS stand-in's FIFO receive as SQS does it (patches/fauxqs+2.4.1.patch): one receive takes up to the
 * requested number of one group's messages, in order, and messages of a group that come back (visibility ended or
 * set to 0) come back in the order they were sent. fauxqs 2.4.1 handed out one message per group per receive, which
 * held every FIFO group locally to one message per round trip (29 events/s on one channel).
 */
let stand: RunningQueuesAndBuckets;
let sqs: SQSClient;
beforeAll(async () => {
  stand = await startQueuesAndBuckets('switchboard-fauxqs-fifo');
  sqs = stand.sqs;
});
afterAll(async () => {
  await stand?.stop();
});

async function fifoQueue(name: string, visibilityTimeout = 30): Promise<string> {
  return (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: `${name}.fifo`,
        Attributes: { FifoQueue: 'true', VisibilityTimeout: String(visibilityTimeout) },
      }),
    )
  ).QueueUrl!;
}

async function send(url: string, group: string, bodies: string[]) {
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: bodies.map((body, i) => ({
        Id: String(i),
        MessageBody: body,
        MessageGroupId: group,
        MessageDeduplicationId: `${group}-${body}`,
      })),
    }),
  );
}

const receive = async (url: string, max = 10) =>
  (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: max, WaitTimeSeconds: 0 })))
    .Messages ?? [];

describe('the SQS stand-in, FIFO', () => {
  it('hands out several messages of one group in one receive, in order, and none of it while they are out', async () => {
    const url = await fifoQueue('one-group');
    await send(url, 'g', ['1', '2', '3', '4', '5', '6', '7']);
    const first = await receive(url, 5);
    expect(first.map((m) => m.Body)).toEqual(['1', '2', '3', '4', '5']);
    expect(await receive(url)).toEqual([]);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: first.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
    expect((await receive(url)).map((m) => m.Body)).toEqual(['6', '7']);
  });

  it('fills a receive from several groups, each in its order', async () => {
    const url = await fifoQueue('two-groups');
    await send(url, 'a', ['a1', 'a2', 'a3']);
    await send(url, 'b', ['b1', 'b2']);
    const got = (await receive(url)).map((m) => m.Body!);
    expect(got.filter((b) => b.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(got.filter((b) => b.startsWith('b'))).toEqual(['b1', 'b2']);
  });

  it('puts a group back in the order it was sent when several of its messages come back at once', async () => {
    const url = await fifoQueue('returned', 1);
    await send(url, 'g', ['1', '2', '3', '4']);
    const out = await receive(url, 3);
    expect(out.map((m) => m.Body)).toEqual(['1', '2', '3']);
    // Not deleted (a failed batch): they come back when their visibility ends, all at once.
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await receive(url)).map((m) => m.Body)).toEqual(['1', '2', '3', '4']);
  });
});
