import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HttpRequest } from '@smithy/core/protocols';
import { dynamoDocumentClient, leanSdkClient } from '#shared/kernel/aws/clients.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import type { Config } from '#shared/kernel/config.ts';

const cfg = {
  AWS_REGION: 'us-east-1',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  S3_ENDPOINT: 'http://127.0.0.1:9',
} as Config;

type SignerConfig = {
  signer: (scheme?: object) => Promise<{ sign(r: HttpRequest, o?: object): Promise<HttpRequest> }>;
};
const signerOf = (client: { config: object }) => (client.config as SignerConfig).signer;
const scheme = { name: 'sigv4', signingName: 'dynamodb', signingRegion: 'us-east-1' };

// V8's own view of an object's layout: whether its properties are fast (not a dictionary).
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

describe('the lean AWS clients', () => {
  it('build their request signer once, not once per request', async () => {
    for (const client of [dynamoDocumentClient(cfg), sqsClient(cfg), s3Client(cfg)]) {
      const first = await signerOf(client)(scheme);
      expect(await signerOf(client)(scheme)).toBe(first);
    }
  });

  it('sign each request with the credentials the provider holds then (a refreshed role is used at once)', async () => {
    let issued = 0;
    // Each set expires within the SDK's refresh margin, so every request asks the provider again.
    const credentials = async () => ({
      accessKeyId: `KEY${++issued}`,
      secretAccessKey: 'secret',
      expiration: new Date(Date.now() + 60_000),
    });
    const client = leanSdkClient(
      new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials }),
    );
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const signer = await signerOf(client)(scheme);
      const signed = await signer.sign(
        new HttpRequest({
          method: 'POST',
          hostname: '127.0.0.1',
          path: '/',
          headers: { host: '127.0.0.1' },
          body: '{}',
        }),
      );
      keys.push(/Credential=(\w+)\//.exec(signed.headers.authorization!)![1]!);
    }
    expect(await signerOf(client)(scheme)).toBe(await signerOf(client)(scheme));
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[1]).toBe(`KEY${issued}`);
  });

  it('keep no signer whose build failed: the next request builds it again', async () => {
    const client = leanSdkClient(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9',
        credentials: { accessKeyId: 'k', secretAccessKey: 's' },
      }),
    );
    const config = client.config as unknown as { signingName?: string; region: () => Promise<string> };
    const region = config.region;
    config.region = () => Promise.reject(new Error('no region yet'));
    await expect(signerOf(client)()).rejects.toThrow('no region yet');
    config.region = region;
    await expect(signerOf(client)()).resolves.toBeDefined();
  });

  it('hold their config as a fast-properties object (the SDK copies it several times per request)', async () => {
    const plain = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' });
    // What the SDK leaves on its own: the copies then cost tens of µs each.
    expect(hasFastProperties(plain.config)).toBe(false);
    for (const client of [dynamoDocumentClient(cfg), sqsClient(cfg), s3Client(cfg)]) {
      await signerOf(client)(scheme);
      expect(hasFastProperties(client.config)).toBe(true);
    }
  });
});
