import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { backgroundIndex, keys, workIndex } from '../../contract/keys.ts';
import { applied, deleteItem, type DynamoTable, putItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { forEachConcurrently } from '../../kernel/shards.ts';

/**
 * Moves what the previous layout kept in one partition per webhook into the spread one: delivery records from
 * `DLV#<project>#<webhook>` to their shard (with the failed-delivery entry in the work index instead of the
 * background index), and hourly counters from `WHSTATS#<project>#<webhook>` into the first counter partition.
 * Run once after deploying the spread layout (`scripts/migrate-webhook-layout.ts`; the local runner does it when it
 * rebuilds an old data directory's table).
 *
 * Safe to run while deliveries go on and to run again: a record already written at its new key by a later attempt
 * gets the old attempts put in front of its own (and the body and keys it lacks); a moved item is marked
 * `migratedFrom` in the same write, so a run that died before deleting the old item only deletes it the next time.
 * One Scan of the whole table (parallel segments), filtered to the old keys.
 */
export async function migrateWebhookLayout(
  table: DynamoTable,
  options: { segments?: number; log?: (line: string) => void } = {},
): Promise<{ deliveries: number; hours: number }> {
  const segments = options.segments ?? 8;
  const moved = { deliveries: 0, hours: 0 };
  await forEachConcurrently(
    Array.from({ length: segments }, (_, n) => n),
    segments,
    async (segment) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await table.client.send(
          new ScanCommand({
            TableName: table.tableName,
            Segment: segment,
            TotalSegments: segments,
            FilterExpression: 'begins_with(pk, :dlv) OR begins_with(pk, :stats)',
            ExpressionAttributeValues: { ':dlv': 'DLV#', ':stats': 'WHSTATS#' },
            ...(startKey ? { ExclusiveStartKey: startKey } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const old = oldKeyOf(String(item.pk));
          if (!old) continue;
          if (old.kind === 'delivery') {
            await moveDelivery(table, item, old);
            moved.deliveries++;
          } else {
            await moveHour(table, item, old);
            moved.hours++;
          }
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    },
  );
  options.log?.(`moved ${moved.deliveries} delivery records and ${moved.hours} hourly counters`);
  return moved;
}

/** The previous layout's key: three segments, no shard. */
function oldKeyOf(pk: string): { kind: 'delivery' | 'hour'; projectId: string; integrationId: string } | undefined {
  const parts = pk.split('#');
  if (parts.length !== 3) return undefined;
  const [prefix, projectId, integrationId] = parts as [string, string, string];
  if (prefix === 'DLV') return { kind: 'delivery', projectId, integrationId };
  if (prefix === 'WHSTATS') return { kind: 'hour', projectId, integrationId };
  return undefined;
}

async function moveDelivery(
  table: DynamoTable,
  item: Record<string, unknown>,
  old: { projectId: string; integrationId: string },
): Promise<void> {
  const deliveryId = String(item.sk);
  const key = keys.delivery(old.projectId, old.integrationId, deliveryId);
  const oldKey = { pk: item.pk, sk: item.sk };
  const {
    [backgroundIndex.partitionKey]: _oldEntryPk,
    [backgroundIndex.sortKey]: _oldEntrySk,
    pk: _pk,
    sk: _sk,
    ...attributes
  } = item;
  const failedEntry =
    attributes.status === 'failed' ? workIndex.failedDeliveriesEntry(old.projectId, old.integrationId, deliveryId) : {};
  const put = await applied(
    putItem(table, {
      Item: { ...key, ...attributes, ...failedEntry, migratedFrom: item.pk },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  if (!put) {
    // A later attempt wrote the record at its new key first: the old attempts go in front of its own.
    const values: Record<string, unknown> = { ':old': item.attempts ?? [], ':empty': [], ':from': item.pk };
    const set = ['attempts = list_append(:old, if_not_exists(attempts, :empty))', 'migratedFrom = :from'];
    for (const name of ['body', 'bodyRef', 'orderKey', 'createdAt'] as const) {
      if (item[name] === undefined) continue;
      set.push(name === 'createdAt' ? 'createdAt = :createdAt' : `${name} = if_not_exists(${name}, :${name})`);
      values[`:${name}`] = item[name];
    }
    await applied(
      updateItem(table, {
        Key: key,
        UpdateExpression: `SET ${set.join(', ')}`,
        ConditionExpression: 'attribute_not_exists(migratedFrom)',
        ExpressionAttributeValues: values,
      }),
    );
  }
  await deleteItem(table, { Key: oldKey });
}

async function moveHour(
  table: DynamoTable,
  item: Record<string, unknown>,
  old: { projectId: string; integrationId: string },
): Promise<void> {
  const counters = Object.entries(item).filter(
    ([name, value]) => typeof value === 'number' && (name === 'succeeded' || name === 'failed' || /^l\d+$/.test(name)),
  );
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':from': item.pk, ':exp': item.expiresAt ?? 0 };
  const adds = counters.map(([name, value], i) => {
    names[`#c${i}`] = name;
    values[`:c${i}`] = value;
    return `#c${i} :c${i}`;
  });
  await applied(
    updateItem(table, {
      Key: keys.webhookHour(old.projectId, old.integrationId, String(item.sk), 0),
      UpdateExpression: `${adds.length ? `ADD ${adds.join(', ')} ` : ''}SET migratedFrom = :from, expiresAt = if_not_exists(expiresAt, :exp)`,
      ConditionExpression: 'attribute_not_exists(migratedFrom)',
      ...(adds.length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    }),
  );
  await deleteItem(table, { Key: { pk: item.pk, sk: item.sk } });
}
