import type { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/contract/keys.ts';
import { type DynamoTable, putItem, readItem, readStoredBatch } from '#shared/kernel/aws/dynamo-table.ts';
import { DependencyOverloadedError } from '#shared/kernel/overload.ts';
import { DynamoKeyStore, type ManagementKey } from '#shared/tenancy/index.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/**
 * A project key's item read with the request's project in one BatchGetItem sent in DynamoDB's own form (not through
 * the document client): what is handed along must be exactly what the document client's own read gives, and the key
 * exactly what was stored. Against dynalite, over the real protocol.
 */
let env: { table: DynamoTable; close(): Promise<void> };
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

const key: ManagementKey = {
  keyId: 'key_along',
  projectId: 'prj_along',
  name: 'deploy script',
  role: 'developer',
  createdAt: '2026-12-02T10:00:00.000Z',
};
// Every kind of value a project's item holds: text, whole and fractional numbers, zero, flags, lists, nested maps.
const project = {
  projectId: 'prj_along',
  name: 'Along',
  companyId: 1042,
  monthlyBotCredits: 2.5,
  zero: 0,
  archived: false,
  tags: ['a', 'b'],
  limits: { sendsPerSecond: 10, nested: { deep: [1, { x: 'y' }] } },
  createdAt: '2026-12-01T00:00:00.000Z',
};

function alongOf(projectId: string) {
  const found: (Record<string, unknown> | undefined)[] = [];
  return {
    found,
    along: {
      key: keys.project(projectId),
      attributes: ['project'],
      found: (item?: Record<string, unknown>) => found.push(item),
    },
  };
}

describe('DynamoKeyStore.findByHash with an item read along', () => {
  const store = () => new DynamoKeyStore(env.table);

  beforeAll(async () => {
    await store().create(key, 'hash-along');
    await putItem(env.table, { Item: { ...keys.project('prj_along'), project, other: 'not asked for' } });
  });

  it("hands along the project as the document client reads it, and the key's stored fields", async () => {
    const { found, along } = alongOf('prj_along');
    expect(await store().findByHash('hash-along', along)).toEqual(key);
    const direct = await readItem(env.table, keys.project('prj_along'));
    expect(found).toHaveLength(1);
    expect(found[0]?.project).toEqual(direct?.project);
    expect(found[0]?.project).toEqual(project);
    // Only the attributes asked for (and the item's key) are read.
    expect(found[0]).not.toHaveProperty('other');
  });

  it('a key with lastUsedAt recorded reads back with it; an unknown key is undefined, its project still handed along', async () => {
    await store().touch('hash-along', key, '2026-12-02T11:00:00.000Z');
    expect(await store().findByHash('hash-along', alongOf('prj_along').along)).toEqual({
      ...key,
      lastUsedAt: '2026-12-02T11:00:00.000Z',
    });
    const { found, along } = alongOf('prj_along');
    expect(await store().findByHash('hash-unknown', along)).toBeUndefined();
    expect(found[0]?.project).toEqual(project);
  });

  it('a project that does not exist is handed along as undefined', async () => {
    const { found, along } = alongOf('prj_missing');
    expect(await store().findByHash('hash-along', along)).toEqual(expect.objectContaining({ keyId: 'key_along' }));
    expect(found).toEqual([undefined]);
  });
});

describe('readStoredBatch', () => {
  /** A client that leaves the last key unprocessed `times` times, then answers every key asked. */
  function leaving(times: number) {
    const asked: number[] = [];
    const client = {
      async send(command: BatchGetItemCommand) {
        const wanted = Object.values(command.input.RequestItems ?? {})[0]!.Keys!;
        asked.push(wanted.length);
        const left = asked.length <= times ? wanted.slice(-1) : [];
        const answered = wanted.slice(0, wanted.length - left.length).map((k) => ({ ...k, v: { S: 'x' } }));
        return { Responses: { t: answered }, UnprocessedKeys: left.length ? { t: { Keys: left } } : {} };
      },
    };
    return { asked, table: { client, tableName: 't' } as unknown as DynamoTable };
  }
  const two = [
    { pk: 'A', sk: 'A' },
    { pk: 'B', sk: 'B' },
  ];

  it('asks again for the keys DynamoDB left unprocessed, and returns every item in its stored form', async () => {
    const { asked, table } = leaving(2);
    const items = await readStoredBatch(table, two);
    expect(asked).toEqual([2, 1, 1]);
    expect(items.map((i) => i.pk?.S).sort()).toEqual(['A', 'B']);
    expect(items[0]).toEqual({ pk: { S: 'A' }, sk: { S: 'A' }, v: { S: 'x' } });
  });

  it('fails as an overload after five tries', async () => {
    const { asked, table } = leaving(10);
    await expect(readStoredBatch(table, two)).rejects.toBeInstanceOf(DependencyOverloadedError);
    expect(asked).toHaveLength(5);
  });
});
