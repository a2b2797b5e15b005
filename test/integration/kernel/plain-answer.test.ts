import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DynamoTable, readStoredBatch, readStrings } from '#shared/kernel/aws/dynamo-table.ts';
import { sendForPlainAnswer } from '#shared/kernel/aws/plain-answer.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * A read whose successful answer is taken as the JSON DynamoDB sends, not walked by the SDK against its schema: it
 * must give exactly what the SDK's own reading gives, leave every other answer to the SDK, and be what the reads made
 * on every project key's request use. Against dynalite, over the real protocol.
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

describe('sendForPlainAnswer', () => {
  beforeAll(async () => {
    await client.send(new PutItemCommand({ TableName: env.table.tableName, Item: item }));
  });

  it('gives a GetItem exactly what the SDK reads, and no more', async () => {
    const input = { TableName: env.table.tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true };
    const sdk = await client.send(new GetItemCommand(input));
    const plain = await sendForPlainAnswer(client, new GetItemCommand(input));
    expect(plain).toEqual(withoutMetadata(sdk));
    expect(plain.Item).toEqual(item);
    // Read here, not by the SDK: the SDK's reading would have added the call's metadata.
    expect(plain).not.toHaveProperty('$metadata');
    const missing = await sendForPlainAnswer(
      client,
      new GetItemCommand({ ...input, Key: { pk: { S: 'NONE' }, sk: item.sk } }),
    );
    expect(missing.Item).toBeUndefined();
  });

  it('gives a BatchGetItem exactly what the SDK reads, with a projection', async () => {
    const input = {
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
    };
    const sdk = await client.send(new BatchGetItemCommand(input));
    const plain = await sendForPlainAnswer(client, new BatchGetItemCommand(input));
    expect(plain).toEqual(withoutMetadata(sdk));
    expect(plain.Responses?.[env.table.tableName]).toEqual([
      { pk: item.pk, sk: item.sk, bytes: item.bytes, list: item.list, map: item.map },
    ]);
    expect(plain).not.toHaveProperty('$metadata');
  });

  it('leaves an error to the SDK: its own type, status and message', async () => {
    const missingTable = new GetItemCommand({ TableName: 'no-such-table', Key: { pk: item.pk, sk: item.sk } });
    const error = await sendForPlainAnswer(client, missingTable).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as ResourceNotFoundException).$metadata.httpStatusCode).toBe(400);
  });

  it('hands an answer that is not JSON to the SDK, which refuses it as it would', async () => {
    let answer = 'not json';
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const odd = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      const get = () => new GetItemCommand({ TableName: 't', Key: { pk: item.pk, sk: item.sk } });
      const sdkError = await odd.send(get()).catch((e: unknown) => e);
      const plainError = await sendForPlainAnswer(odd, get()).catch((e: unknown) => e);
      expect(plainError).toBeInstanceOf(Error);
      expect((plainError as Error).name).toBe((sdkError as Error).name);
      answer = '{"Item":{"pk":{"S":"from the odd server"}}}';
      expect(await sendForPlainAnswer(odd, get())).toEqual({ Item: { pk: { S: 'from the odd server' } } });
    } finally {
      odd.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the reads on a project key's every request", () => {
  it('readStoredBatch and readStrings take their answers plainly', async () => {
    const send = vi.spyOn(env.table.client, 'send');
    try {
      const key = { pk: item.pk.S, sk: item.sk.S };
      expect(await readStoredBatch(env.table, [key], ['text'])).toEqual([
        { pk: item.pk, sk: item.sk, text: item.text },
      ]);
      expect(await readStrings(env.table, key, ['text', 'whole'])).toEqual({ text: item.text.S });
      const stacks = send.mock.calls.map(([command]) => (command as GetItemCommand).middlewareStack.identify());
      expect(stacks).toHaveLength(2);
      for (const stack of stacks) expect(stack).toContainEqual(expect.stringMatching(/^plainAnswer /));
    } finally {
      send.mockRestore();
    }
  });
});
