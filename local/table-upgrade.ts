import {
  BatchWriteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  ScanCommand,
  type TableDescription,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mainTable } from '#shared/contract/table.ts';
import { migrateWebhookLayout } from '#shared/webhooks/index.ts';

/** Whether a local table has every index the contract names, each with its projection. */
export function hasContractIndexes(table: TableDescription): boolean {
  const existing = new Map(
    (table.GlobalSecondaryIndexes ?? []).map((g) => [g.IndexName, g.Projection?.ProjectionType]),
  );
  return (
    existing.size === mainTable.globalSecondaryIndexes.length &&
    mainTable.globalSecondaryIndexes.every((g) => existing.get(g.indexName) === g.projection)
  );
}

/**
 * Rebuilds a local table kept in a data directory by an older version whose indexes differ from the contract's:
 * dynalite cannot add or change an index in place (on AWS the deployment adds it, and DynamoDB fills it from the
 * items). Every item is read, the table is made again by `create`, and the items are written back, so each one joins
 * the indexes it has keys for; then a webhook's items move to the spread layout (on AWS,
 * `scripts/migrate-webhook-layout.ts`). Local data only: a few thousand items take a second.
 */
export async function rebuildWithContractIndexes(ddb: DynamoDBClient, create: () => Promise<void>): Promise<number> {
  const items: Record<string, never>[] = [];
  let startKey: Record<string, never> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ TableName: mainTable.localName, ExclusiveStartKey: startKey }));
    items.push(...((page.Items ?? []) as Record<string, never>[]));
    startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  await ddb.send(new DeleteTableCommand({ TableName: mainTable.localName }));
  // dynalite answers the delete before the table is gone.
  for (;;) {
    try {
      await ddb.send(new DescribeTableCommand({ TableName: mainTable.localName }));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) break;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await create();
  for (let i = 0; i < items.length; i += 25) {
    let pending: WriteRequest[] = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length) {
      const out = await ddb.send(new BatchWriteItemCommand({ RequestItems: { [mainTable.localName]: pending } }));
      pending = out.UnprocessedItems?.[mainTable.localName] ?? [];
    }
  }
  await migrateWebhookLayout({ client: DynamoDBDocumentClient.from(ddb), tableName: mainTable.localName });
  return items.length;
}
