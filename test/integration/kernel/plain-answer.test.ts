import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DynamoTable, readStoredBatch, readStrings } from '#shared/kernel/aws/dynamo-table.ts';
import { sendPlainly } from '#shared/kernel/aws/plain-answer.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * A read written and read as the JSON DynamoDB speaks, not walked by the SDK against its schema: it must send what the
 * SDK's own writer sends, give exactly what the SDK's own reading gives, leave every other answer to the SDK, and be
 * what the reads made on every project key's request use. Against dynalite, over the real protocol, and a recording
 * server for the request's exact form.
 */
let env: { table: DynamoTable; close(): Promise<void> };
let client: DynamoDBClient;
beforeAll(async () => {
  env = await startTestTable();
  client = env.table.client as unknown as DynamoDBClient;
});
afterAll(async () => env?.close());

// Every kind of value DynamoDB stores, nested too.
const item = {
  pk: { S: 'PLAIN#1' },
  sk: { S: 'PLAIN' },
  text: { S: 'héllo "quoted" \\ \n' },
  whole: { N: '42' },
  fraction: { N: '-0.125' },
  bytes: { B: new Uint8Array([0, 1, 2, 250, 255]) },
  byteSet: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
  texts: { SS: ['a', 'b'] },
  numbers: { NS: ['1', '2.5'] },
  yes: { BOOL: true },
  nothing: { NULL: true },
  list: { L: [{ S: 'x' }, { N: '1' }, { B: new Uint8Array([9]) }, { M: { deep: { L: [{ BOOL: false }] } } }] },
  map: { M: { inner: { M: { bytes: { B: new Uint8Array([7, 7]) } } }, empty: { M: {} } } },
};
const withoutMetadata = ({ $metadata, ...rest }: { $metadata?: unknown }) => rest;
const getInput = () => ({
  TableName: env.table.tableName,
  Key: { pk: item.pk, sk: item.sk },
  ConsistentRead: true,
});
const batchInput = () => ({
  RequestItems: {
    [env.table.tableName]: {
      Keys: [
        { pk: item.pk, sk: item.sk },
        { pk: { S: 'NONE' }, sk: item.sk },
      ],
      ConsistentRead: true,
      ProjectionExpression: 'pk, sk, #b, #l, #m',
      ExpressionAttributeNames: { '#b': 'bytes', '#l': 'list', '#m': 'map' },
    },
  },
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** The SigV4 signature a recorded request should carry (the recording server's client's secret), computed here. */
function signatureOf(request: { headers: IncomingHttpHeaders; url: string; body: string }): string {
  const authorization = String(request.headers.authorization);
  const [, scope, signedHeaders] = /Credential=\w+\/([^,]+), SignedHeaders=([^,]+),/.exec(authorization)!;
  const canonical = [
    'POST',
    request.url,
    '',
    ...signedHeaders!.split(';').map((name) => `${name}:${String(request.headers[name]).trim()}`),
    '',
    signedHeaders,
    sha256(request.body),
  ].join('\n');
  const [day, region, service] = scope!.split('/');
  const amzDate = String(request.headers['x-amz-date']);
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac('AWS4secret', day!), region!), service!), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

/** A server that records each request and answers `answer` (200), with a client of its own on it. */
async function recordingServer(answer: () => string) {
  const received: { headers: IncomingHttpHeaders; url: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, url: req.url ?? '', body });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(answer());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const own = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
  return {
    received,
    client: own,
    async close() {
      own.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('sendPlainly', () => {
  beforeAll(async () => {
    await client.send(new PutItemCommand({ TableName: env.table.tableName, Item: item }));
  });

  it('gives a GetItem exactly what the SDK reads, and no more', async () => {
    const sdk = await client.send(new GetItemCommand(getInput()));
    const plain = await sendPlainly(client, 'GetItem', getInput());
    expect(plain).toEqual(withoutMetadata(sdk));
    expect(plain.Item).toEqual(item);
    // Read here, not by the SDK: the SDK's reading would have added the call's metadata.
    expect(plain).not.toHaveProperty('$metadata');
    const missing = await sendPlainly(client, 'GetItem', { ...getInput(), Key: { pk: { S: 'NONE' }, sk: item.sk } });
    expect(missing.Item).toBeUndefined();
  });

  it('gives a BatchGetItem exactly what the SDK reads, with a projection', async () => {
    const sdk = await client.send(new BatchGetItemCommand(batchInput()));
    const plain = await sendPlainly(client, 'BatchGetItem', batchInput());
    expect(plain).toEqual(withoutMetadata(sdk));
    expect(plain.Responses?.[env.table.tableName]).toEqual([
      { pk: item.pk, sk: item.sk, bytes: item.bytes, list: item.list, map: item.map },
    ]);
    expect(plain).not.toHaveProperty('$metadata');
  });

  it("sends what the SDK's writer sends: path, headers, body, each validly signed", async () => {
    const server = await recordingServer(() => '{}');
    try {
      await server.client.send(new BatchGetItemCommand(batchInput()));
      await sendPlainly(server.client, 'BatchGetItem', batchInput());
      await server.client.send(new GetItemCommand(getInput()));
      await sendPlainly(server.client, 'GetItem', getInput());
    } finally {
      await server.close();
    }
    const [sdkBatch, plainBatch, sdkGet, plainGet] = server.received;
    for (const [sdk, plain] of [
      [sdkBatch!, plainBatch!],
      [sdkGet!, plainGet!],
    ] as const) {
      // Each call has its own id and moment, so its own signature; everything else is the same.
      const rest = ({ headers, ...request }: (typeof server.received)[number]) => {
        const { 'amz-sdk-invocation-id': _id, 'x-amz-date': _date, authorization, ...others } = headers;
        return { ...request, headers: others, signed: authorization?.replace(/Signature=\w+$/, '') };
      };
      expect(rest(plain)).toEqual(rest(sdk));
      expect(signatureOf(sdk)).toBe(sdk.headers.authorization?.split('Signature=')[1]);
      expect(signatureOf(plain)).toBe(plain.headers.authorization?.split('Signature=')[1]);
    }
    expect(sdkBatch!.headers['x-amz-target']).toBe('DynamoDB_20120810.BatchGetItem');
    expect(sdkGet!.url).toBe('/base/');
  });

  it("on AWS's own endpoints (none configured, with and without the account's id), the SDK writer's request", async () => {
    for (const accountId of [undefined, '123456789012']) {
      const sent: {
        protocol: string;
        hostname: string;
        path: string;
        headers: Record<string, string>;
        body: string;
      }[] = [];
      // Nothing leaves this process: the client's HTTP handler records the request and answers an empty read.
      const aws = new DynamoDBClient({
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', ...(accountId ? { accountId } : {}) },
        maxAttempts: 1,
        requestHandler: {
          handle: async (request: (typeof sent)[number]) => {
            sent.push(request);
            return { response: { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('{}')]) } };
          },
        },
      });
      await aws.send(new BatchGetItemCommand(batchInput()));
      await sendPlainly(aws, 'BatchGetItem', batchInput());
      aws.destroy();
      const [sdk, plain] = sent.map(({ protocol, hostname, path, headers, body }) => {
        const { 'amz-sdk-invocation-id': _id, 'x-amz-date': _date, authorization, ...others } = headers;
        // The SDK's writer gives the body as bytes, this as the same text.
        const text = typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array);
        return {
          protocol,
          hostname,
          path,
          headers: others,
          signed: authorization?.replace(/Signature=\w+$/, ''),
          text,
        };
      });
      expect(plain).toEqual(sdk);
      expect(sdk!.hostname).toBe(
        accountId ? `${accountId}.ddb.eu-west-1.amazonaws.com` : 'dynamodb.eu-west-1.amazonaws.com',
      );
    }
  });

  it('leaves an error to the SDK: its own type, status and message', async () => {
    const error = await sendPlainly(client, 'GetItem', { ...getInput(), TableName: 'no-such-table' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as ResourceNotFoundException).$metadata.httpStatusCode).toBe(400);
  });

  it('hands an answer that is not JSON to the SDK, which refuses it as it would', async () => {
    let answer = 'not json';
    const server = await recordingServer(() => answer);
    try {
      const sdkError = await server.client.send(new GetItemCommand(getInput())).catch((e: unknown) => e);
      const plainError = await sendPlainly(server.client, 'GetItem', getInput()).catch((e: unknown) => e);
      expect(plainError).toBeInstanceOf(Error);
      expect((plainError as Error).name).toBe((sdkError as Error).name);
      answer = '{"Item":{"pk":{"S":"from the recording server"}}}';
      expect(await sendPlainly(server.client, 'GetItem', getInput())).toEqual({
        Item: { pk: { S: 'from the recording server' } },
      });
    } finally {
      await server.close();
    }
  });
});

describe("the reads on a project key's every request", () => {
  it('readStoredBatch and readStrings are sent plainly', async () => {
    const send = vi.spyOn(env.table.client, 'send');
    try {
      const key = { pk: item.pk.S, sk: item.sk.S };
      expect(await readStoredBatch(env.table, [key], ['text'])).toEqual([
        { pk: item.pk, sk: item.sk, text: item.text },
      ]);
      expect(await readStrings(env.table, key, ['text', 'whole'])).toEqual({ text: item.text.S });
      await client.send(new GetItemCommand(getInput()));
      // Each call's whole stack, the client's with the command's: the SDK's writer replaced (not joined) by this one.
      const stacks = send.mock.calls.map(([command]) =>
        client.middlewareStack.concat((command as GetItemCommand).middlewareStack).identify(),
      );
      const [batch, get, sdk] = stacks;
      for (const stack of [batch!, get!]) {
        expect(stack).toContainEqual(expect.stringMatching(/^plainAnswer /));
        expect(stack.filter((name) => !name.startsWith('plainAnswer '))).toEqual(sdk);
      }
    } finally {
      send.mockRestore();
    }
  });
});
