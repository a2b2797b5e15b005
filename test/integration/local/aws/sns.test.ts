import {
  CreateTopicCommand,
  ListTopicsCommand,
  NotFoundException,
  PublishBatchCommand,
  PublishCommand,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newQueue, receiveMessages, topicMessages } from '#test/support/local-aws.ts';
import { startStandIns, type StandIns } from './stand-ins.ts';

/**
 * SNS through its SDK client (fauxqs serves it on the SQS + S3 endpoint): topics standard and FIFO, Publish and
 * PublishBatch with attributes, SQS subscriptions raw or in SNS's JSON envelope, and what a topic received.
 */
let aws: StandIns;
beforeAll(async () => {
  aws = await startStandIns();
});
afterAll(async () => aws?.stop());

describe('the SNS stand-in', () => {
  it('delivers to an SQS subscription in the JSON envelope, with the attributes, and records what the topic received', async () => {
    const { TopicArn } = await aws.sns.send(new CreateTopicCommand({ Name: 'orders' }));
    expect(TopicArn).toBe('arn:aws:sns:us-east-1:000000000000:orders');
    expect((await aws.sns.send(new ListTopicsCommand({}))).Topics?.map((t) => t.TopicArn)).toContain(TopicArn);
    const queue = await newQueue(aws.sqs, 'orders-envelope');
    await aws.sns.send(new SubscribeCommand({ TopicArn, Protocol: 'sqs', Endpoint: queue.arn }));

    const { MessageId } = await aws.sns.send(
      new PublishCommand({
        TopicArn,
        Message: '{"order":1}',
        Subject: 'New order',
        MessageAttributes: { 'webhook-id': { DataType: 'String', StringValue: 'msg_1' } },
      }),
    );
    const [message] = await receiveMessages(aws.sqs, queue.url, 1);
    const envelope = JSON.parse(message!.Body!);
    expect(envelope).toMatchObject({
      Type: 'Notification',
      MessageId,
      TopicArn,
      Subject: 'New order',
      Message: '{"order":1}',
      MessageAttributes: { 'webhook-id': { Type: 'String', Value: 'msg_1' } },
    });
    expect(new Date(envelope.Timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);

    expect(await topicMessages(aws.info, TopicArn!)).toEqual([
      expect.objectContaining({
        messageId: MessageId,
        message: '{"order":1}',
        subject: 'New order',
        messageAttributes: { 'webhook-id': { DataType: 'String', StringValue: 'msg_1' } },
        callerAccessKeyId: 'test',
      }),
    ]);
  });

  it('delivers raw to a FIFO queue from a FIFO topic, grouped and deduplicated, and PublishBatch too', async () => {
    const { TopicArn } = await aws.sns.send(
      new CreateTopicCommand({ Name: 'events.fifo', Attributes: { FifoTopic: 'true' } }),
    );
    const queue = await newQueue(aws.sqs, 'events-raw.fifo');
    await aws.sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: queue.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    await aws.sns.send(
      new PublishBatchCommand({
        TopicArn,
        PublishBatchRequestEntries: ['a', 'b', 'c'].map((body, i) => ({
          Id: `e${i}`,
          Message: body,
          MessageGroupId: 'chan-1',
          MessageDeduplicationId: `d-${body}`,
          MessageAttributes: { n: { DataType: 'Number', StringValue: String(i) } },
        })),
      }),
    );
    // The same deduplication id again: dropped, as within SNS FIFO's five-minute window.
    await aws.sns.send(
      new PublishCommand({ TopicArn, Message: 'a', MessageGroupId: 'chan-1', MessageDeduplicationId: 'd-a' }),
    );
    const received = await receiveMessages(aws.sqs, queue.url, 3);
    expect(received.map((m) => m.Body)).toEqual(['a', 'b', 'c']);
    expect(received.map((m) => m.Attributes?.MessageGroupId)).toEqual(['chan-1', 'chan-1', 'chan-1']);
    expect(received[1]!.MessageAttributes?.n).toMatchObject({ DataType: 'Number', StringValue: '1' });
    const recorded = await topicMessages(aws.info, TopicArn!);
    expect(recorded.slice(0, 3).map((m) => [m.message, m.messageGroupId, m.messageDeduplicationId])).toEqual([
      ['a', 'chan-1', 'd-a'],
      ['b', 'chan-1', 'd-b'],
      ['c', 'chan-1', 'd-c'],
    ]);
  });

  it('refuses a FIFO publish without a group, and an unknown topic with NotFoundException', async () => {
    const { TopicArn } = await aws.sns.send(
      new CreateTopicCommand({ Name: 'strict.fifo', Attributes: { FifoTopic: 'true' } }),
    );
    const noGroup = await aws.sns.send(new PublishCommand({ TopicArn, Message: 'x' })).catch((e: unknown) => e);
    expect((noGroup as Error).name).toBe('InvalidParameterException');
    const unknown = await aws.sns
      .send(new PublishCommand({ TopicArn: 'arn:aws:sns:us-east-1:000000000000:nope', Message: 'x' }))
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundException);
  });
});
