import { CreateEventBusCommand } from '@aws-sdk/client-eventbridge';
import { CreateStreamCommand } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsDestinationSender } from '#shared/webhooks/adapters/aws-destination-sender.ts';
import type { DestinationDelivery } from '#shared/webhooks/destination-sender.ts';
import type { AwsDestination } from '#shared/integrations/index.ts';
import {
  assumeRoleCalls,
  busEvents,
  newQueue,
  receiveMessages,
  streamRecords,
  topicMessages,
} from '#test/support/local-aws.ts';
import { startStandIns, type StandIns } from '../local/aws/stand-ins.ts';

/** Deliveries into the stand-ins of SQS, SNS, EventBridge, Kinesis, S3, through roles assumed from the local STS. */
let aws: StandIns;
let sender: AwsDestinationSender;
let s3: S3Client;
beforeAll(async () => {
  aws = await startStandIns();
  const e = aws.info.endpoints;
  sender = new AwsDestinationSender({
    region: aws.info.region,
    endpoints: { sqs: e.sqs, s3: e.s3, sns: e.sns, eventbridge: e.eventbridge, kinesis: e.kinesis, sts: e.sts },
    sessionSeconds: 900,
    timeoutMs: 5_000,
    allowLocalQueueUrls: true,
  });
  s3 = new S3Client({
    region: aws.info.region,
    endpoint: e.s3,
    forcePathStyle: true,
    credentials: { accessKeyId: 't', secretAccessKey: 't' },
  });
});
afterAll(async () => {
  sender?.destroy();
  s3?.destroy();
  await aws?.stop();
});

const envelope = { id: 'evt_1', type: 'message.sent', timestamp: '2026-03-04T05:06:07.000Z', data: {} };
const body = JSON.stringify(envelope);
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc=' };
let n = 0;
const roleArn = (name = `role-${++n}`) => `arn:aws:iam::123456789012:role/${name}`;
const delivery = (destination: AwsDestination): DestinationDelivery => ({
  destination,
  externalId: 'sbx_project',
  projectId: 'prj_1',
  deliveryId: `dlv_${++n}`,
  eventId: 'evt_1',
  orderKey: 'conversation:c1',
  body,
  headers,
});

describe('AwsDestinationSender', () => {
  it('sends to SQS with the headers as attributes, and to a FIFO queue in the ordering key group', async () => {
    const queue = await newQueue(aws.sqs, 'plain');
    const fifo = await newQueue(aws.sqs, 'ordered.fifo');
    const role = roleArn();
    expect(await sender.send(delivery({ type: 'sqs', roleArn: role, queueUrl: queue.url }))).toMatchObject({
      kind: 'success',
    });
    expect(await sender.send(delivery({ type: 'sqs', roleArn: role, queueUrl: fifo.url }))).toMatchObject({
      kind: 'success',
    });
    const [m] = await receiveMessages(aws.sqs, queue.url, 1);
    expect(m!.Body).toBe(body);
    expect(m!.MessageAttributes?.['webhook-signature']?.StringValue).toBe('v1,abc=');
    const [f] = await receiveMessages(aws.sqs, fifo.url, 1);
    expect(f!.Attributes?.MessageGroupId).toBe('conversation:c1');
    // One AssumeRole for both, with the external id.
    const calls = await assumeRoleCalls(aws.info, role);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ externalId: 'sbx_project', roleSessionName: 'switchboard-prj_1' });
  });

  it('publishes to SNS, puts on EventBridge and Kinesis, writes to S3', async () => {
    const topicArn = (await aws.sns.send(new CreateTopicCommand({ Name: 'hooks' }))).TopicArn!;
    const eventBusArn = (await aws.eventBridge.send(new CreateEventBusCommand({ Name: 'hooks' }))).EventBusArn!;
    await aws.kinesis.send(new CreateStreamCommand({ StreamName: 'hooks', ShardCount: 1 }));
    await s3.send(new CreateBucketCommand({ Bucket: 'customer-hooks' }));
    const role = roleArn();
    const outcomes = await Promise.all([
      sender.send(delivery({ type: 'sns', roleArn: role, topicArn })),
      sender.send(delivery({ type: 'eventbridge', roleArn: role, eventBusArn })),
      sender.send(
        delivery({ type: 'kinesis', roleArn: role, streamArn: 'arn:aws:kinesis:us-east-1:000000000000:stream/hooks' }),
      ),
      sender.send(delivery({ type: 's3', roleArn: role, bucket: 'customer-hooks', prefix: 'in/' })),
    ]);
    expect(outcomes.map((o) => [o.kind, 'error' in o ? o.error : ''])).toEqual(Array(4).fill(['success', '']));
    expect((await topicMessages(aws.info, topicArn))[0]?.message).toBe(body);
    const [event] = await busEvents(aws.info, 'hooks');
    expect(event!.event['detail-type']).toBe('message.sent');
    expect(event!.event.detail).toEqual({ ...headers, envelope });
    const [record] = await streamRecords(aws.info, 'hooks');
    expect(record!.partitionKey).toBe('conversation:c1');
    expect(Buffer.from(record!.data, 'base64').toString()).toBe(body);
    const object = await s3.send(new GetObjectCommand({ Bucket: 'customer-hooks', Key: 'in/2026/03/04/evt_1.json' }));
    expect(await object.Body!.transformToString()).toBe(body);
    expect(object.Metadata).toEqual(headers);
  });

  it('turns a refused role and a missing resource into failed attempts naming the error, with no credentials', async () => {
    const queue = await newQueue(aws.sqs, 'unreached');
    const denied = await sender.send(delivery({ type: 'sqs', roleArn: roleArn('deny-me'), queueUrl: queue.url }));
    expect(denied).toMatchObject({ kind: 'http-error', statusCode: 403 });
    expect('error' in denied && denied.error).toMatch(/^sts AssumeRole: AccessDenied/);
    const missing = await sender.send(
      delivery({ type: 'sqs', roleArn: roleArn(), queueUrl: queue.url.replace('unreached', 'nowhere') }),
    );
    expect(missing.kind).toBe('http-error');
    expect('error' in missing && missing.error).toMatch(/^sqs SendMessage: /);
    const bus = await sender.send(
      delivery({
        type: 'eventbridge',
        roleArn: roleArn(),
        eventBusArn: 'arn:aws:events:us-east-1:000000000000:event-bus/none',
      }),
    );
    expect('error' in bus && bus.error).toMatch(/ResourceNotFoundException/);
    for (const o of [denied, missing, bus]) expect(JSON.stringify(o)).not.toMatch(/ASIA|AKIA/);
  });
});
