import { CreateEventBusCommand } from '@aws-sdk/client-eventbridge';
import { CreateStreamCommand } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalAws } from '#local/emulators.ts';
import { eventually } from '#test/support/eventually.ts';
import { deniedCalls } from '#test/support/iam.ts';
import {
  assumeRoleCalls,
  busEvents,
  type LocalAwsClients,
  openLocalAws,
  newQueue,
  receiveMessages,
  streamRecords,
  topicMessages,
} from '#test/support/local-aws.ts';
import { type ServiceClient, sharedBundles, sharedService } from '#test/support/service.ts';

/**
 * Webhook destinations in customers' AWS accounts, delivered by the `deliver` bundle as on AWS: its AssumeRole and
 * the destination's call go through bundles mode's AWS front (STS, SNS, EventBridge and Kinesis too, Kinesis over
 * HTTP/2), reach the stand-ins, and the front's record holds the AssumeRole against the deliver role's IAM.
 */
let svc: ServiceClient;
let info: LocalAws;
let aws: LocalAwsClients;
let s3: S3Client;
const ACCOUNT = '123456789012';
const stamp = Date.now().toString(36);

beforeAll(async () => {
  svc = await sharedService();
  ({ info, aws } = await openLocalAws(svc.baseUrl));
  s3 = aws.s3;
});
afterAll(async () => {
  aws?.destroy();
  await svc?.close();
});

async function arrived<T>(read: () => Promise<T[]>): Promise<T[]> {
  return eventually(async () => {
    const items = await read();
    return items.length ? items : undefined;
  }, 20_000);
}

describe('destinations from the deploy bundles', () => {
  it('delivers to SQS, SNS, EventBridge, Kinesis and S3, every call through the front and allowed by its role', async () => {
    const queue = await newQueue(aws.sqs, `bundles-destination-${stamp}`);
    const topicArn = (await aws.sns.send(new CreateTopicCommand({ Name: `bundles-${stamp}` }))).TopicArn!;
    const busName = `bundles-${stamp}`;
    const eventBusArn = (await aws.eventBridge.send(new CreateEventBusCommand({ Name: busName }))).EventBusArn!;
    const streamName = `bundles-${stamp}`;
    await aws.kinesis.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: 1 }));
    const streamArn = `arn:aws:kinesis:${info.region}:000000000000:stream/${streamName}`;
    const bucket = `bundles-destination-${stamp}`;
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const roleOf = (kind: string) => `arn:aws:iam::${ACCOUNT}:role/bundles-${kind}-${stamp}`;
    // One project each (a project has one general webhook), each its own role.
    const sent = await Promise.all(
      [
        { type: 'sqs', queueUrl: queue.url },
        { type: 'sns', topicArn },
        { type: 'eventbridge', eventBusArn },
        { type: 'kinesis', streamArn },
        { type: 's3', bucket },
      ].map((destination) => deliverOne({ ...destination, roleArn: roleOf(destination.type) })),
    );
    const eventOf = (kind: string) => sent.find((s) => s.kind === kind)!.eventId;

    const [message] = await receiveMessages(aws.sqs, queue.url, 1);
    expect(JSON.parse(message!.Body!)).toMatchObject({ id: eventOf('sqs') });
    const [published] = await arrived(() => topicMessages(info, topicArn));
    expect(JSON.parse(published!.message)).toMatchObject({ id: eventOf('sns') });
    const [onBus] = await arrived(() => busEvents(info, busName));
    expect((onBus!.event.detail as { envelope: unknown }).envelope).toMatchObject({ id: eventOf('eventbridge') });
    const [record] = await arrived(() => streamRecords(info, streamName));
    expect(record!.partitionKey).toBe('conversation:conv-b');
    expect(JSON.parse(Buffer.from(record!.data, 'base64').toString())).toMatchObject({ id: eventOf('kinesis') });
    const [object] = await arrived(
      async () => (await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? [],
    );
    expect(object!.Key).toContain(eventOf('s3'));

    const { deployment, names, awsCalls } = await sharedBundles();
    for (const { kind, externalId } of sent) {
      const roleArn = roleOf(kind);
      // The role was assumed once, with the deliver function's credentials and the project's external id.
      const assumed = await assumeRoleCalls(info, roleArn);
      expect(assumed.map((c) => [c.callerAccessKeyId, c.externalId])).toEqual([['deliver', externalId]]);
      expect(awsCalls.filter((c) => c.action === 'sts:AssumeRole' && c.resource === roleArn)).toEqual([
        { fn: 'deliver', action: 'sts:AssumeRole', resource: roleArn, context: { 'sts:ExternalId': externalId } },
      ]);
    }
    const viaRoles = awsCalls
      .filter((c) => c.role?.endsWith(`-${stamp}`))
      .map((c) => [c.role, c.fn, c.action, c.resource]);
    expect(viaRoles).toEqual(
      expect.arrayContaining([
        [roleOf('sqs'), 'deliver', 'sqs:SendMessage', queue.arn],
        [roleOf('sns'), 'deliver', 'sns:Publish', topicArn],
        [roleOf('eventbridge'), 'deliver', 'events:PutEvents', eventBusArn],
        [roleOf('kinesis'), 'deliver', 'kinesis:PutRecord', streamArn],
        [roleOf('s3'), 'deliver', 's3:PutObject', expect.stringContaining(`arn:aws:s3:::${bucket}/`)],
      ]),
    );
    const ours = awsCalls.filter(
      (c) => c.role?.endsWith(`-${stamp}`) || (c.action === 'sts:AssumeRole' && c.resource.endsWith(`-${stamp}`)),
    );
    expect(await deniedCalls(deployment, names, ours)).toEqual([]);
    // The deliver role allows AssumeRole only with one of the service's external ids: with another, denied.
    const assumeRole = ours.find((c) => c.action === 'sts:AssumeRole')!;
    const withoutOurs = { ...assumeRole, context: { 'sts:ExternalId': 'customer-chosen' } };
    expect(await deniedCalls(deployment, names, [withoutOurs])).toEqual([
      `deliver: sts:AssumeRole on ${assumeRole.resource} is ImplicitlyDenied by its role`,
    ]);
  }, 90_000);
});

/** A project whose one webhook is `destination`, and one event reported to it. */
async function deliverOne(destination: { type: string; roleArn: string }) {
  const { projectId } = await svc.newProject({ companyId: 4300 });
  const externalId = (await svc.admin('GET', `/projects/${projectId}`)).body.externalId as string;
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'sms',
    address: '+5511999990000',
  });
  const hook = await svc.admin('POST', `/projects/${projectId}/integrations`, {
    product: 'webhook',
    scope: 'general',
    destination,
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const posted = await svc.admin('POST', `/projects/${projectId}/events`, {
    channelId: channel.body.channelId,
    type: 'message.sent',
    data: { messageId: 'msg_bundles', conversationId: 'conv-b' },
  });
  expect(posted.status).toBe(202);
  return { kind: destination.type, externalId, eventId: posted.body.eventId as string };
}
