import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListEventBusesCommand } from '@aws-sdk/client-eventbridge';
import { ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { GetAccountCommand } from '@aws-sdk/client-sesv2';
import { ListTopicsCommand } from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalAws } from '#local/emulators.ts';
import { localAwsClients } from '#test/support/local-aws.ts';
import { type ServiceClient, sharedService } from '#test/support/service.ts';

/**
 * `GET /local/aws`: every AWS service the local runner stands in for, with its endpoint, each answering its own
 * SDK client with whatever credentials it is given.
 */
let svc: ServiceClient;
beforeAll(async () => {
  svc = await sharedService();
});
afterAll(async () => svc?.close());

describe('GET /local/aws', () => {
  it('lists the region and an endpoint per service, each of which answers its SDK client', async () => {
    const response = await fetch(`${svc.baseUrl}/local/aws`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const info = (await response.json()) as LocalAws;
    expect(info.region).toBe('us-east-1');
    expect(Object.keys(info.endpoints).sort()).toEqual(
      ['dynamodb', 'eventbridge', 'kinesis', 's3', 'ses', 'sns', 'sqs', 'sts'].sort(),
    );
    for (const endpoint of Object.values(info.endpoints)) expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const clients = localAwsClients(info, 'any-key-at-all');
    const base = { region: info.region, credentials: { accessKeyId: 'x', secretAccessKey: 'y' } };
    const dynamo = new DynamoDBClient({ ...base, endpoint: info.endpoints.dynamodb });
    const s3 = new S3Client({ ...base, endpoint: info.endpoints.s3, forcePathStyle: true });
    try {
      expect((await dynamo.send(new ListTablesCommand({}))).TableNames?.length).toBeGreaterThan(0);
      expect((await clients.sqs.send(new ListQueuesCommand({}))).QueueUrls?.length).toBeGreaterThan(0);
      expect((await s3.send(new ListBucketsCommand({}))).Buckets?.length).toBeGreaterThan(0);
      expect((await clients.sns.send(new ListTopicsCommand({}))).$metadata.httpStatusCode).toBe(200);
      expect((await clients.eventBridge.send(new ListEventBusesCommand({}))).EventBuses?.map((b) => b.Name)).toContain(
        'default',
      );
      expect((await clients.kinesis.send(new ListStreamsCommand({}))).$metadata.httpStatusCode).toBe(200);
      expect((await clients.sts.send(new GetCallerIdentityCommand({}))).Account).toBe('000000000000');
      expect((await clients.ses.send(new GetAccountCommand({}))).SendingEnabled).toBe(true);
    } finally {
      clients.destroy();
      dynamo.destroy();
      s3.destroy();
    }
  });

  it('answers GET only, with no credentials asked', async () => {
    const post = await fetch(`${svc.baseUrl}/local/aws`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(((await post.json()) as { error: string }).error).toBe('METHOD_NOT_ALLOWED');
    const head = await fetch(`${svc.baseUrl}/local/aws`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});
