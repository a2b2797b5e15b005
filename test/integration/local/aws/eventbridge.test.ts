import {
  CreateEventBusCommand,
  DeleteRuleCommand,
  DescribeEventBusCommand,
  InvalidEventPatternException,
  ListTargetsByRuleCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
  ResourceAlreadyExistsException,
  ResourceNotFoundException,
  TestEventPatternCommand,
} from '@aws-sdk/client-eventbridge';
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busEvents, newQueue, receiveMessages } from '#test/support/local-aws.ts';
import { consistently } from '#test/support/eventually.ts';
import { startStandIns, type StandIns } from './stand-ins.ts';

/** EventBridge's stand-in through its SDK client: buses, PutEvents, rules with patterns, SQS / SNS / bus targets. */
let aws: StandIns;
beforeAll(async () => {
  aws = await startStandIns();
});
afterAll(async () => aws?.stop());

const entry = (detail: unknown, more: Record<string, unknown> = {}) => ({
  Source: 'switchboard',
  DetailType: 'message.delivered',
  Detail: JSON.stringify(detail),
  ...more,
});

describe('the EventBridge stand-in', () => {
  it('routes events matching a rule to an SQS target, in the event shape AWS sends, and records what the bus received', async () => {
    const { EventBusArn } = await aws.eventBridge.send(new CreateEventBusCommand({ Name: 'customer-bus' }));
    expect(EventBusArn).toBe('arn:aws:events:us-east-1:000000000000:event-bus/customer-bus');
    const queue = await newQueue(aws.sqs, 'delivered-events');
    await aws.eventBridge.send(
      new PutRuleCommand({
        Name: 'delivered',
        EventBusName: 'customer-bus',
        EventPattern: JSON.stringify({ source: ['switchboard'], detail: { channel: [{ prefix: 'wa-' }] } }),
      }),
    );
    const targets = await aws.eventBridge.send(
      new PutTargetsCommand({
        Rule: 'delivered',
        EventBusName: 'customer-bus',
        Targets: [{ Id: 'q', Arn: queue.arn }],
      }),
    );
    expect(targets.FailedEntryCount).toBe(0);

    const put = await aws.eventBridge.send(
      new PutEventsCommand({
        Entries: [
          entry({ channel: 'wa-1', n: 1 }, { EventBusName: EventBusArn }),
          entry({ channel: 'sms-1', n: 2 }, { EventBusName: 'customer-bus' }),
          entry({ channel: 'wa-2', n: 3 }, { EventBusName: 'customer-bus', Resources: ['arn:x'] }),
        ],
      }),
    );
    expect(put.FailedEntryCount).toBe(0);
    const ids = put.Entries!.map((e) => e.EventId);
    const messages = await receiveMessages(aws.sqs, queue.url, 2);
    const events = messages.map((m) => JSON.parse(m.Body!)).sort((a, b) => a.detail.n - b.detail.n);
    expect(events.map((e) => e.detail.n)).toEqual([1, 3]);
    expect(events[0]).toEqual({
      version: '0',
      id: ids[0],
      'detail-type': 'message.delivered',
      source: 'switchboard',
      account: '000000000000',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      region: 'us-east-1',
      resources: [],
      detail: { channel: 'wa-1', n: 1 },
    });
    await consistently(async () => expect(await receiveMessages(aws.sqs, queue.url, 1, 0)).toEqual([]), 300);

    const received = await busEvents(aws.info, 'customer-bus');
    expect(received.map((r) => r.event.id)).toEqual(ids);
    expect(received[0]!.callerAccessKeyId).toBe('test');
  });

  it('delivers to an SNS topic and to a FIFO queue with its message group, and takes Input and InputPath', async () => {
    const { TopicArn } = await aws.sns.send(new CreateTopicCommand({ Name: 'from-bus' }));
    const viaTopic = await newQueue(aws.sqs, 'from-bus-topic');
    await aws.sns.send(
      new SubscribeCommand({
        TopicArn,
        Protocol: 'sqs',
        Endpoint: viaTopic.arn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    const fifo = await newQueue(aws.sqs, 'from-bus.fifo');
    await aws.eventBridge.send(
      new PutRuleCommand({ Name: 'all-orders', EventPattern: JSON.stringify({ 'detail-type': ['order'] }) }),
    );
    await aws.eventBridge.send(
      new PutTargetsCommand({
        Rule: 'all-orders',
        Targets: [
          { Id: 'topic', Arn: TopicArn, InputPath: '$.detail' },
          { Id: 'fifo', Arn: fifo.arn, SqsParameters: { MessageGroupId: 'orders' }, Input: '{"constant":true}' },
        ],
      }),
    );
    await aws.eventBridge.send(new PutEventsCommand({ Entries: [entry({ id: 7 }, { DetailType: 'order' })] }));
    expect((await receiveMessages(aws.sqs, viaTopic.url, 1)).map((m) => JSON.parse(m.Body!))).toEqual([{ id: 7 }]);
    const [fromFifo] = await receiveMessages(aws.sqs, fifo.url, 1);
    expect(JSON.parse(fromFifo!.Body!)).toEqual({ constant: true });
    expect(fromFifo!.Attributes?.MessageGroupId).toBe('orders');
    expect((await busEvents(aws.info)).at(-1)!.event['detail-type']).toBe('order');
  });

  it('answers with the exceptions the SDK names, and fails entries the way PutEvents does', async () => {
    const describe = await aws.eventBridge.send(new DescribeEventBusCommand({ Name: 'nope' })).catch((e: unknown) => e);
    expect(describe).toBeInstanceOf(ResourceNotFoundException);
    expect((describe as Error).message).toBe('Event bus nope does not exist.');
    const rule = await aws.eventBridge
      .send(new PutRuleCommand({ Name: 'r', EventBusName: 'nope', EventPattern: '{"source":["x"]}' }))
      .catch((e: unknown) => e);
    expect(rule).toBeInstanceOf(ResourceNotFoundException);
    await aws.eventBridge.send(new CreateEventBusCommand({ Name: 'once' }));
    expect(
      await aws.eventBridge.send(new CreateEventBusCommand({ Name: 'once' })).catch((e: unknown) => e),
    ).toBeInstanceOf(ResourceAlreadyExistsException);
    const pattern = await aws.eventBridge
      .send(new PutRuleCommand({ Name: 'bad', EventPattern: '{"source":"not-a-list"}' }))
      .catch((e: unknown) => e);
    expect(pattern).toBeInstanceOf(InvalidEventPatternException);
    const targets = await aws.eventBridge
      .send(new ListTargetsByRuleCommand({ Rule: 'missing-rule' }))
      .catch((e: unknown) => e);
    expect(targets).toBeInstanceOf(ResourceNotFoundException);

    const put = await aws.eventBridge.send(
      new PutEventsCommand({
        Entries: [
          entry({ ok: true }),
          { Source: 'switchboard', DetailType: 'x', Detail: 'not json' },
          { Source: 'switchboard', Detail: '{}' },
          entry({}, { EventBusName: 'no-such-bus' }),
          entry({}, { Source: 'aws.ses' }),
        ],
      }),
    );
    expect(put.FailedEntryCount).toBe(4);
    expect(put.Entries!.map((e) => e.ErrorCode ?? 'ok')).toEqual([
      'ok',
      'MalformedDetail',
      'InvalidArgument',
      'ResourceNotFoundException',
      'NotAuthorizedForSourceException',
    ]);
  });

  it('keeps a rule with targets until they are removed, and checks patterns with TestEventPattern', async () => {
    const queue = await newQueue(aws.sqs, 'kept-rule');
    await aws.eventBridge.send(new PutRuleCommand({ Name: 'kept', EventPattern: '{"source":["a"]}' }));
    await aws.eventBridge.send(new PutTargetsCommand({ Rule: 'kept', Targets: [{ Id: '1', Arn: queue.arn }] }));
    const refused = await aws.eventBridge.send(new DeleteRuleCommand({ Name: 'kept' })).catch((e: unknown) => e);
    expect((refused as Error).name).toBe('ValidationException');

    const test = (pattern: unknown, detail: unknown) =>
      aws.eventBridge
        .send(
          new TestEventPatternCommand({
            EventPattern: JSON.stringify(pattern),
            Event: JSON.stringify({
              id: '1',
              source: 'switchboard',
              'detail-type': 'message.failed',
              account: '000000000000',
              time: '2026-12-01T00:00:00Z',
              region: 'us-east-1',
              resources: [],
              detail,
            }),
          }),
        )
        .then((r) => r.Result);
    expect(await test({ detail: { code: [{ 'anything-but': ['A', 'B'] }] } }, { code: 'C' })).toBe(true);
    expect(await test({ detail: { retries: [{ numeric: ['>', 2, '<=', 5] }] } }, { retries: 6 })).toBe(false);
    expect(await test({ detail: { gone: [{ exists: false }] } }, { here: 1 })).toBe(true);
  });
});
