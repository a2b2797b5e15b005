import { CreateEventBusCommand } from '@aws-sdk/client-eventbridge';
import { CreateStreamCommand } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalAws } from '#local/emulators.ts';
import { eventually } from '#test/support/eventually.ts';
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
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * Webhooks whose destination is in the customer's AWS account: the role assumed with the project's external id,
 * the same envelope and Standard Webhooks headers, read back from the local stand-ins as a customer would.
 */
let svc: ServiceClient;
let info: LocalAws;
let aws: LocalAwsClients;
let s3: S3Client;
const ACCOUNT = '123456789012';
let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;
const role = (name = unique('delivery')) => `arn:aws:iam::${ACCOUNT}:role/${name}`;

beforeAll(async () => {
  svc = await sharedService();
  ({ info, aws } = await openLocalAws(svc.baseUrl));
  s3 = aws.s3;
});
afterAll(async () => {
  aws?.destroy();
  await svc?.close();
});

async function project() {
  const { projectId } = await svc.newProject({ companyId: 1042 });
  const got = await svc.admin('GET', `/projects/${projectId}`);
  const channel = await svc.admin('POST', `/projects/${projectId}/channels`, {
    type: 'sms',
    name: 'sms',
    address: '+5511999990000',
  });
  expect(channel.status).toBe(201);
  const channelId = channel.body.channelId as string;
  const webhook = async (destination: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await svc.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      destination,
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { integrationId: string; signingSecret: string; destination: unknown; url: unknown };
  };
  const event = async (data: Record<string, unknown> = { messageId: 'msg_1' }, type = 'message.sent') => {
    const res = await svc.admin('POST', `/projects/${projectId}/events`, { channelId, type, data });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.eventId as string;
  };
  const deliveries = async (integrationId: string) =>
    (await svc.admin('GET', `/projects/${projectId}/integrations/${integrationId}/deliveries`)).body.items as any[];
  return { projectId, externalId: got.body.externalId as string, channelId, webhook, event, deliveries };
}

/** Waits for `read` to give `count` items (eventually() takes a value, not an assertion). */
async function arrived<T>(read: () => Promise<T[]>, count = 1, timeoutMs = 10_000): Promise<T[]> {
  return eventually(async () => {
    const items = await read();
    return items.length >= count ? items : undefined;
  }, timeoutMs);
}

const verify = (secret: string, body: string, headers: Record<string, string>) =>
  new Webhook(secret).verify(body, headers);

describe('the project external id', () => {
  it('is made with the project and never changes', async () => {
    const p = await project();
    expect(p.externalId).toMatch(/^sbx_[A-Za-z0-9_-]{20,}$/);
    await svc.admin('PATCH', `/projects/${p.projectId}`, { name: 'Renamed' });
    expect((await svc.admin('GET', `/projects/${p.projectId}`)).body.externalId).toBe(p.externalId);
    expect((await project()).externalId).not.toBe(p.externalId);
  });
});

describe('SQS destinations', () => {
  it('sends the signed envelope with its headers as message attributes, assuming the role with the external id', async () => {
    const p = await project();
    const queue = await newQueue(aws.sqs, unique('customer'));
    const roleArn = role();
    const hook = await p.webhook({ type: 'sqs', queueUrl: queue.url, roleArn });
    expect(hook.url).toBeNull();
    expect(hook.destination).toEqual({ type: 'sqs', queueUrl: queue.url, roleArn });
    expect(await assumeRoleCalls(info, roleArn)).toEqual([]); // not assumed at create
    const got = await svc.admin('GET', `/projects/${p.projectId}/integrations/${hook.integrationId}`);
    expect(got.body.destination).toEqual({ type: 'sqs', queueUrl: queue.url, roleArn });

    const eventId = await p.event();
    const [message] = await receiveMessages(aws.sqs, queue.url, 1);
    const body = message!.Body!;
    expect(JSON.parse(body)).toMatchObject({ id: eventId, type: 'message.sent', projectId: p.projectId });
    const headers = Object.fromEntries(
      Object.entries(message!.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue!]),
    );
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-id']).toBe(eventId);
    expect(verify(hook.signingSecret, body, headers)).toMatchObject({ id: eventId });

    const calls = await assumeRoleCalls(info, roleArn);
    expect(calls.length).toBe(1);
    expect(calls[0]).toMatchObject({ externalId: p.externalId });
    expect(calls[0]!.refused).toBeUndefined();
    const [delivery] = await arrived(async () =>
      (await p.deliveries(hook.integrationId)).filter((d) => d.status === 'succeeded'),
    );
    expect(delivery.attempts).toHaveLength(1);

    // Credentials are kept: a second delivery assumes nothing more.
    await p.event();
    expect(await receiveMessages(aws.sqs, queue.url, 1)).toHaveLength(1);
    expect(await assumeRoleCalls(info, roleArn)).toHaveLength(1);
  });

  it('takes a test event like an HTTP webhook (what the console sends)', async () => {
    const p = await project();
    const queue = await newQueue(aws.sqs, unique('tested'));
    const hook = await p.webhook({ type: 'sqs', queueUrl: queue.url, roleArn: role() });
    const tested = await svc.admin('POST', `/projects/${p.projectId}/integrations/${hook.integrationId}/test`);
    expect(tested.status).toBe(202);
    const [message] = await receiveMessages(aws.sqs, queue.url, 1);
    expect(JSON.parse(message!.Body!)).toMatchObject({ id: tested.body.eventId, type: 'webhook.test' });
  });

  it('groups a FIFO queue by the ordering key', async () => {
    const p = await project();
    const queue = await newQueue(aws.sqs, `${unique('ordered')}.fifo`);
    await p.webhook({ type: 'sqs', queueUrl: queue.url, roleArn: role() }, { ordering: 'conversation' });
    await p.event({ messageId: 'm1', conversationId: 'conv-a' });
    await p.event({ messageId: 'm2', conversationId: 'conv-b' });
    const messages = await receiveMessages(aws.sqs, queue.url, 2);
    expect(messages.map((m) => m.Attributes?.MessageGroupId).sort()).toEqual([
      'conversation:conv-a',
      'conversation:conv-b',
    ]);
  });

  it('records a role that cannot be assumed as failed attempts with the error code, retried on schedule', async () => {
    const p = await project();
    const queue = await newQueue(aws.sqs, unique('never'));
    const hook = await p.webhook({ type: 'sqs', queueUrl: queue.url, roleArn: role(unique('deny-us')) });
    await p.event();
    const [delivery] = await arrived(
      async () => (await p.deliveries(hook.integrationId)).filter((d) => d.status === 'failed'),
      1,
      15_000,
    );
    expect(delivery.attempts).toHaveLength(4); // the e2e schedule: 3 retries
    for (const attempt of delivery.attempts) {
      expect(attempt.statusCode).toBe(403);
      expect(attempt.error).toMatch(/^sts AssumeRole: AccessDenied/);
    }
    expect(JSON.stringify(delivery)).not.toMatch(/ASIA|AKIA|secretAccessKey|sessionToken/i);
    // Refusals are remembered briefly, so a backlog does not ask STS once per delivery.
    expect(
      (await assumeRoleCalls(info, hook.destination ? (hook.destination as any).roleArn : '')).length,
    ).toBeGreaterThan(0);
    expect(await receiveMessages(aws.sqs, queue.url, 0, 0)).toEqual([]);
  });

  it('records a queue that does not exist as a failed attempt naming the error', async () => {
    const p = await project();
    const hook = await p.webhook({
      type: 'sqs',
      queueUrl: `${info.endpoints.sqs}/000000000000/${unique('missing')}`,
      roleArn: role(),
    });
    await p.event();
    const [delivery] = await arrived(
      async () => (await p.deliveries(hook.integrationId)).filter((d) => d.attempts.length > 0),
      1,
      15_000,
    );
    expect(delivery.attempts[0].error).toMatch(/^sqs SendMessage: .*(NonExistentQueue|QueueDoesNotExist)/);
  });
});

describe('SNS, EventBridge, Kinesis and S3 destinations', () => {
  it('publishes to a topic with the headers as message attributes', async () => {
    const p = await project();
    const topicArn = (await aws.sns.send(new CreateTopicCommand({ Name: unique('topic') }))).TopicArn!;
    const hook = await p.webhook({ type: 'sns', topicArn, roleArn: role() });
    const eventId = await p.event();
    const [message] = await arrived(() => topicMessages(info, topicArn));
    const attributes = message!.messageAttributes as Record<string, { Value?: string; StringValue?: string }>;
    const headers = Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, v.StringValue ?? v.Value!]));
    expect(verify(hook.signingSecret, message!.message, headers)).toMatchObject({ id: eventId });
  });

  it('puts an event on a bus: the headers beside the envelope in detail', async () => {
    const p = await project();
    const name = unique('bus');
    const eventBusArn = (await aws.eventBridge.send(new CreateEventBusCommand({ Name: name }))).EventBusArn!;
    const hook = await p.webhook({ type: 'eventbridge', eventBusArn, roleArn: role(), detailType: 'Switchboard' });
    const eventId = await p.event();
    const [got] = await arrived(() => busEvents(info, name));
    expect(got!.event['detail-type']).toBe('Switchboard');
    const detail = got!.event.detail as Record<string, any>;
    expect(detail.envelope).toMatchObject({ id: eventId, type: 'message.sent' });
    const headers = { 'webhook-id': detail['webhook-id'], 'webhook-timestamp': detail['webhook-timestamp'] };
    expect(
      verify(hook.signingSecret, JSON.stringify(detail.envelope), {
        ...headers,
        'webhook-signature': detail['webhook-signature'],
      }),
    ).toMatchObject({ id: eventId });
  });

  it('puts a record on a stream partitioned by the ordering key', async () => {
    const p = await project();
    const name = unique('stream');
    await aws.kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: 2 }));
    const streamArn = `arn:aws:kinesis:${info.region}:000000000000:stream/${name}`;
    await p.webhook({ type: 'kinesis', streamArn, roleArn: role() });
    const eventId = await p.event({ messageId: 'm1', conversationId: 'conv-k' });
    const [record] = await arrived(() => streamRecords(info, name));
    expect(record!.partitionKey).toBe('conversation:conv-k');
    expect(JSON.parse(Buffer.from(record!.data, 'base64').toString())).toMatchObject({ id: eventId });
  });

  it('writes one object per event under the prefix and date, the headers as metadata', async () => {
    const p = await project();
    const bucket = unique('customer-bucket');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const hook = await p.webhook({ type: 's3', bucket, prefix: 'events/', roleArn: role() });
    const eventId = await p.event();
    const [object0] = await arrived(
      async () => (await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? [],
    );
    const key = object0!.Key!;
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
    expect(key).toBe(`events/${day}/${eventId}.json`);
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await object.Body!.transformToString();
    expect(Object.keys(object.Metadata ?? {}).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(verify(hook.signingSecret, body, object.Metadata!)).toMatchObject({ id: eventId });
  });
});

describe('bad destinations', () => {
  it('answers 400 VALIDATION_ERROR for a malformed ARN, queue URL, bucket, or a url beside a non-http destination', async () => {
    const p = await project();
    const good = role();
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [
        {
          type: 'sqs',
          queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
          roleArn: 'arn:aws:iam::12:role/x',
        },
        {},
        'destination.roleArn',
      ],
      [{ type: 'sqs', queueUrl: 'https://example.com/123456789012/q', roleArn: good }, {}, 'destination.queueUrl'],
      [{ type: 'sns', topicArn: 'arn:aws:sqs:us-east-1:123456789012:t', roleArn: good }, {}, 'destination.topicArn'],
      [
        { type: 'eventbridge', eventBusArn: 'arn:aws:events:us-east-1:123456789012:rule/x', roleArn: good },
        {},
        'destination.eventBusArn',
      ],
      [{ type: 'kinesis', streamArn: 'not-an-arn', roleArn: good }, {}, 'destination.streamArn'],
      [{ type: 's3', bucket: 'Bad_Bucket', roleArn: good }, {}, 'destination.bucket'],
      [
        { type: 'sns', topicArn: 'arn:aws:sns:us-east-1:123456789012:t', roleArn: good },
        { url: 'https://example.com/' },
        'url',
      ],
      [{ type: 'http' }, {}, 'url'],
    ];
    for (const [destination, extra, path] of cases) {
      const res = await svc.admin('POST', `/projects/${p.projectId}/integrations`, {
        product: 'webhook',
        scope: 'general',
        destination,
        ...extra,
      });
      expect(res.status, JSON.stringify(destination)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(
        res.body.details.map((d: any) => d.path),
        JSON.stringify(destination),
      ).toContain(path);
    }
  });
});
