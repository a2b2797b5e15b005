import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ClassicLevel } from 'classic-level';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startDynalite } from '#local/emulators.ts';
import { tableActive } from '#local/provisioning.ts';

/**
 * How the DynamoDB stand-in reads LevelDB (patches/dynalite+4.0.0.patch): every item and table lookup straight from
 * the open database. dynalite 4 asked for each one asynchronously, a round trip through libuv's thread pool that cost
 * ~40 us of CPU against ~1 us, and it makes two or more per request (the table's description, then the item): CPU
 * every local service and every test's service spent for nothing.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const TABLE = 'reads';

/** classic-level's own reads under abstract-level's `get` and `getSync` (not in its published types). */
const leveldb = ClassicLevel.prototype as unknown as {
  _get(...args: unknown[]): Promise<unknown>;
  _getSync(...args: unknown[]): unknown;
};

function client(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

async function get(ddb: DynamoDBClient, pk: string): Promise<string | undefined> {
  const out = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk } }, ConsistentRead: true }));
  return out.Item?.v?.S;
}

describe('the DynamoDB stand-in on LevelDB', () => {
  it('reads every item at once from the open database, and each read sees the writes answered before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-dynalite-reads-'));
    dirs.push(dir);
    const dynamo = await startDynalite(dir);
    const ddb = client(dynamo.endpoint);
    try {
      await ddb.send(
        new CreateTableCommand({
          TableName: TABLE,
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      // dynalite answers while the table is CREATING: a loaded machine can delay its ACTIVE past the first write.
      await tableActive(ddb, TABLE);
      const queued = vi.spyOn(leveldb, '_get');
      const direct = vi.spyOn(leveldb, '_getSync');
      for (const pk of ['a', 'b', 'c'])
        await ddb.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: pk }, v: { S: `first ${pk}` } } }));
      expect([await get(ddb, 'a'), await get(ddb, 'b'), await get(ddb, 'c'), await get(ddb, 'none')]).toEqual([
        'first a',
        'first b',
        'first c',
        undefined,
      ]);
      await ddb.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: 'b' } },
          UpdateExpression: 'SET v = :v',
          ConditionExpression: 'v = :was',
          ExpressionAttributeValues: { ':v': { S: 'second b' }, ':was': { S: 'first b' } },
        }),
      );
      expect(await get(ddb, 'b')).toBe('second b');
      // Table descriptions and items alike: nothing went through the thread pool.
      expect(queued).not.toHaveBeenCalled();
      expect(direct.mock.calls.length).toBeGreaterThanOrEqual(10);
    } finally {
      ddb.destroy();
      await dynamo.close();
    }

    // The same folder opened again: what the reads find now comes from LevelDB's files.
    const again = await startDynalite(dir);
    const reader = client(again.endpoint);
    try {
      expect([await get(reader, 'a'), await get(reader, 'b'), await get(reader, 'none')]).toEqual([
        'first a',
        'second b',
        undefined,
      ]);
    } finally {
      reader.destroy();
      await again.close();
    }
  });
});
