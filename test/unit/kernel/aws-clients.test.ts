import { describe, expect, it } from 'vitest';
import { GetQueueUrlCommand, QueueDoesNotExist } from '@aws-sdk/client-sqs';
import { dynamoDocumentClient } from '#shared/kernel/aws/clients.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import type { Config } from '#shared/kernel/config.ts';

const cfg = {
  AWS_REGION: 'us-east-1',
  // Nothing listens there: a call fails fast, which is all the error test needs.
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  S3_ENDPOINT: 'http://127.0.0.1:9',
} as Config;

describe('the AWS clients', () => {
  it('carry no SDK logger middleware (it copied every input and output for a no-op logger)', () => {
    for (const client of [dynamoDocumentClient(cfg), sqsClient(cfg), s3Client(cfg)]) {
      const stack = client.middlewareStack.identify().join('\n');
      expect(stack).not.toMatch(/loggerMiddleware/);
      expect(stack).toMatch(/awsAuthMiddleware|httpSigningMiddleware/);
    }
  });

  it('still reject a failed call to its caller', async () => {
    const error = await sqsClient(cfg)
      .send(new GetQueueUrlCommand({ QueueName: 'nope' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(QueueDoesNotExist);
    expect(String((error as Error & { code?: string }).code ?? (error as Error).message)).toMatch(/ECONNREFUSED/);
  });
});
