import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsFront, type AwsFront } from '#local/bundles/aws-front.ts';

/** The AWS front of bundles mode: what it records for each protocol, where it forwards, what it answers itself. */
let upstream: Server;
let forwarded: { method: string; url: string; body: string }[];
let front: AwsFront;
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:switchboard-adminKey-local';

beforeAll(async () => {
  forwarded = [];
  upstream = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    forwarded.push({ method: req.method!, url: req.url!, body });
    if (body.includes('Action=AssumeRole')) {
      res.writeHead(200, { 'content-type': 'text/xml' });
      return void res.end('<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAISSUED</AccessKeyId>');
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }).listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const at = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  front = await startAwsFront({
    region: 'us-east-1',
    account: '000000000000',
    dynamoEndpoint: at,
    queuesAndBucketsEndpoint: at,
    standIns: { sts: at, eventbridge: at, kinesis: at },
    sesEndpoint: at,
    secrets: { [SECRET_ARN]: 'sba_the-admin-key' },
  });
});
afterAll(async () => {
  await front?.stop();
  upstream?.close();
});

const signed = (fn: string, service: string, extra: Record<string, string> = {}) => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${fn}/20261124/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
  ...extra,
});

describe('the AWS front of bundles mode', () => {
  it('records DynamoDB calls by function, with the table or index they name, and forwards them', async () => {
    front.calls.length = 0;
    const call = (target: string, body: unknown) =>
      fetch(front.endpoint, {
        method: 'POST',
        headers: signed('admin', 'dynamodb', { 'x-amz-target': `DynamoDB_20120810.${target}` }),
        body: JSON.stringify(body),
      });
    expect((await call('Query', { TableName: 't', IndexName: 'gsi1' })).status).toBe(200);
    await call('BatchWriteItem', { RequestItems: { t: [] } });
    expect(front.calls).toEqual([
      { fn: 'admin', action: 'dynamodb:Query', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/t/index/gsi1' },
      { fn: 'admin', action: 'dynamodb:BatchWriteItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/t' },
    ]);
    expect(forwarded.at(-1)!.body).toContain('RequestItems');
  });

  it('records SQS batch calls as the action IAM checks, on the queue the URL names', async () => {
    front.calls.length = 0;
    await fetch(front.endpoint, {
      method: 'POST',
      headers: signed('send', 'sqs', { 'x-amz-target': 'AmazonSQS.SendMessageBatch' }),
      body: JSON.stringify({
        QueueUrl: 'http://sqs.us-east-1.127.0.0.1:9/000000000000/switchboard-events',
        Entries: [],
      }),
    });
    expect(front.calls).toEqual([
      { fn: 'send', action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:switchboard-events' },
    ]);
  });

  it('records S3 calls as object or bucket actions, presigned ones by their signer', async () => {
    front.calls.length = 0;
    await fetch(`${front.endpoint}/bucket/bots/b1/file%20one.md`, {
      method: 'PUT',
      headers: signed('admin', 's3'),
      body: 'x',
    });
    await fetch(`${front.endpoint}/bucket/bots/b1/index.json`, { headers: signed('search', 's3') });
    await fetch(`${front.endpoint}/bucket`, { method: 'HEAD', headers: signed('health', 's3') });
    await fetch(`${front.endpoint}/bucket/k?uploadId=1`, { method: 'DELETE', headers: signed('admin', 's3') });
    await fetch(
      `${front.endpoint}/bucket/uploads/x.pdf?X-Amz-Credential=${encodeURIComponent('extract/20261124/us-east-1/s3/aws4_request')}`,
    );
    expect(front.calls).toEqual([
      { fn: 'admin', action: 's3:PutObject', resource: 'arn:aws:s3:::bucket/bots/b1/file one.md' },
      { fn: 'search', action: 's3:GetObject', resource: 'arn:aws:s3:::bucket/bots/b1/index.json' },
      { fn: 'health', action: 's3:ListBucket', resource: 'arn:aws:s3:::bucket' },
      { fn: 'admin', action: 's3:AbortMultipartUpload', resource: 'arn:aws:s3:::bucket/k' },
      { fn: 'extract', action: 's3:GetObject', resource: 'arn:aws:s3:::bucket/uploads/x.pdf' },
    ]);
  });

  it('serves Secrets Manager itself: the value for a known ARN, ResourceNotFound otherwise', async () => {
    front.calls.length = 0;
    const get = (id: string) =>
      fetch(front.endpoint, {
        method: 'POST',
        headers: signed('admin', 'secretsmanager', { 'x-amz-target': 'secretsmanager.GetSecretValue' }),
        body: JSON.stringify({ SecretId: id }),
      });
    const found = await get(SECRET_ARN);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { SecretString: string }).SecretString).toBe('sba_the-admin-key');
    const missing = await get('arn:aws:secretsmanager:us-east-1:000000000000:secret:other');
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { __type: string }).__type).toBe('ResourceNotFoundException');
    expect(front.calls.map((c) => c.action)).toEqual([
      'secretsmanager:GetSecretValue',
      'secretsmanager:GetSecretValue',
    ]);
  });

  it('records SES v2 SendEmail on the From identity and the configuration set, and forwards it to the SES stand-in', async () => {
    front.calls.length = 0;
    forwarded.length = 0;
    const body = JSON.stringify({
      FromEmailAddress: '"Acme News" <news@acme.example>',
      Destination: { ToAddresses: ['success@simulator.amazonses.com'] },
      ConfigurationSetName: 'switchboard',
      Content: { Simple: { Subject: { Data: 'Hi' }, Body: { Text: { Data: 'Hello' } } } },
    });
    const res = await fetch(`${front.endpoint}/v2/email/outbound-emails`, {
      method: 'POST',
      headers: signed('outbound', 'ses', { 'content-type': 'application/json' }),
      body,
    });
    expect(res.status).toBe(200);
    expect(forwarded).toEqual([{ method: 'POST', url: '/v2/email/outbound-emails', body }]);
    expect(front.calls).toEqual([
      { fn: 'outbound', action: 'ses:SendEmail', resource: 'arn:aws:ses:us-east-1:000000000000:identity/acme.example' },
      {
        fn: 'outbound',
        action: 'ses:SendEmail',
        resource: 'arn:aws:ses:us-east-1:000000000000:configuration-set/switchboard',
      },
    ]);
  });

  it('records a Bedrock call with the model it names and refuses it (no stand-in)', async () => {
    front.calls.length = 0;
    const res = await fetch(`${front.endpoint}/model/${encodeURIComponent('amazon.nova-lite-v1:0')}/converse`, {
      method: 'POST',
      headers: signed('completion', 'bedrock'),
      body: '{}',
    });
    expect(res.status).toBe(501);
    expect(front.calls).toEqual([
      {
        fn: 'completion',
        action: 'bedrock:InvokeModel',
        resource: 'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0',
      },
    ]);
  });

  it("records AssumeRole with its external id, then the role's calls under that role: SNS, EventBridge, Kinesis over HTTP/2", async () => {
    front.calls.length = 0;
    const role = 'arn:aws:iam::123456789012:role/delivery';
    const assumed = await fetch(front.endpoint, {
      method: 'POST',
      headers: signed('deliver', 'sts', { 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams({ Action: 'AssumeRole', RoleArn: role, ExternalId: 'sbx_project' }).toString(),
    });
    expect(await assumed.text()).toContain('ASIAISSUED');
    await fetch(front.endpoint, {
      method: 'POST',
      headers: signed('ASIAISSUED', 'sns', { 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams({ Action: 'Publish', TopicArn: 'arn:aws:sns:us-east-1:123456789012:t' }).toString(),
    });
    await fetch(front.endpoint, {
      method: 'POST',
      headers: signed('ASIAISSUED', 'events', { 'x-amz-target': 'AWSEvents.PutEvents' }),
      body: JSON.stringify({ Entries: [{ EventBusName: 'arn:aws:events:us-east-1:123456789012:event-bus/b' }, {}] }),
    });
    // Kinesis's SDK client speaks HTTP/2 without TLS: the front takes it and forwards the call.
    const session = connect(front.endpoint);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/',
      ...signed('ASIAISSUED', 'kinesis', { 'x-amz-target': 'Kinesis_20131202.PutRecord' }),
    });
    stream.end(JSON.stringify({ StreamARN: 'arn:aws:kinesis:us-east-1:123456789012:stream/s', Data: 'e30=' }));
    const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
    let answer = '';
    for await (const chunk of stream) answer += chunk;
    session.close();
    expect([headers[':status'], answer]).toEqual([200, '{}']);
    expect(forwarded.at(-1)!.body).toContain('"StreamARN"');
    // A key STS did not issue through the front is no role's: recorded as its own caller.
    await fetch(front.endpoint, {
      method: 'POST',
      headers: signed('ASIAOTHER', 'kinesis', { 'x-amz-target': 'Kinesis_20131202.PutRecord' }),
      body: JSON.stringify({ StreamName: 's' }),
    });
    const viaRole = { fn: 'deliver', role };
    expect(front.calls).toEqual([
      { fn: 'deliver', action: 'sts:AssumeRole', resource: role, context: { 'sts:ExternalId': 'sbx_project' } },
      { ...viaRole, action: 'sns:Publish', resource: 'arn:aws:sns:us-east-1:123456789012:t' },
      { ...viaRole, action: 'events:PutEvents', resource: 'arn:aws:events:us-east-1:123456789012:event-bus/b' },
      { ...viaRole, action: 'events:PutEvents', resource: 'arn:aws:events:us-east-1:000000000000:event-bus/default' },
      { ...viaRole, action: 'kinesis:PutRecord', resource: 'arn:aws:kinesis:us-east-1:123456789012:stream/s' },
      { fn: 'ASIAOTHER', action: 'kinesis:PutRecord', resource: 'arn:aws:kinesis:us-east-1:000000000000:stream/s' },
    ]);
  });
});
