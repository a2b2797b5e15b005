import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynalite, startEmulators } from '#local/emulators.ts';
import { tableActive } from '#local/provisioning.ts';
import { mainTable } from '#shared/contract/table.ts';
import { DynamoDeliveryStore } from '#shared/webhooks/index.ts';
import { localDocumentClient } from '#test/support/dynamo.ts';

/** A data directory written by the version before the work index: started by this one, it is brought up to date. */
const dataDir = mkdtempSync(join(tmpdir(), 'sb-table-upgrade-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a local table from before the work index', () => {
  it('gets the contract indexes at start, keeps every item, and moves webhook records to the spread layout', async () => {
    // The previous version's table: two indexes, both projecting everything, and a delivery under its old key.
    const old = await startDynalite(join(dataDir, 'dynamodb'));
    const ddb = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: old.endpoint,
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const previous = mainTable.globalSecondaryIndexes.filter((g) => g.indexName !== 'gsi3');
    await ddb.send(
      new CreateTableCommand({
        TableName: mainTable.localName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: ['pk', 'sk', ...previous.flatMap((g) => [g.partitionKey, g.sortKey])].map((name) => ({
          AttributeName: name,
          AttributeType: 'S',
        })),
        GlobalSecondaryIndexes: previous.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await tableActive(ddb, mainTable.localName);
    await ddb.send(
      new PutItemCommand({
        TableName: mainTable.localName,
        Item: {
          pk: { S: 'DLV#prj_u#int_u' },
          sk: { S: 'dlv_00000000a1' },
          deliveryId: { S: 'dlv_00000000a1' },
          projectId: { S: 'prj_u' },
          integrationId: { S: 'int_u' },
          eventId: { S: 'evt_00000000a' },
          eventType: { S: 'message.sent' },
          status: { S: 'succeeded' },
          attempts: { L: [{ M: { at: { S: '2026-11-20T10:00:00.000Z' }, durationMs: { N: '3' } } }] },
        },
      }),
    );
    await ddb.send(
      new PutItemCommand({ TableName: mainTable.localName, Item: { pk: { S: 'PRJ#prj_u' }, sk: { S: 'PRJ' } } }),
    );
    ddb.destroy();
    await old.close();

    const emulators = await startEmulators(dataDir);
    try {
      const client = new DynamoDBClient({
        region: emulators.region,
        endpoint: emulators.dynamoEndpoint,
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      });
      const { Table } = await client.send(new DescribeTableCommand({ TableName: mainTable.localName }));
      expect(Table?.GlobalSecondaryIndexes?.map((g) => [g.IndexName, g.Projection?.ProjectionType]).sort()).toEqual(
        mainTable.globalSecondaryIndexes.map((g) => [g.indexName, g.projection]).sort(),
      );
      client.destroy();
      const doc = localDocumentClient(emulators.dynamoEndpoint);
      const store = new DynamoDeliveryStore({ client: doc, tableName: emulators.tableName });
      expect((await store.list('prj_u', 'int_u', { limit: 10 })).items.map((d) => d.deliveryId)).toEqual([
        'dlv_00000000a1',
      ]);
      const project = await doc.send(
        new GetCommand({ TableName: emulators.tableName, Key: { pk: 'PRJ#prj_u', sk: 'PRJ' } }),
      );
      expect(project.Item).toBeDefined();
      doc.destroy();
    } finally {
      await emulators.stop();
    }
  });
});
