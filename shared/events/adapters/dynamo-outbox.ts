import { indexes } from '../../contract/table.ts';
import { backgroundIndex, workIndex } from '../../contract/keys.ts';
import {
  applied,
  deleteItem,
  type DynamoTable,
  putItem,
  queryPage,
  readBatch,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import type { OutboxMark } from '../outbox.ts';
import type { StaleItem, StalePage, UnpublishedEvents } from '../sweep-unpublished.ts';

/**
 * Outbox marks on DynamoDB items (the item whose change produced the event: a message's status item, a report's
 * record). Each mark is one top-level attribute `ob_<eventId>` holding the queue message; `obCount` counts them, and
 * while any is pending the item has an entry in the work index (keys only) in one of the outbox's shards, sorted by
 * when its first mark was written, for the sweep. The shard is the event's order key's, so one conversation's marks
 * are swept in order.
 *
 * Cost: the mark rides in the change's own write, plus one index write of about 1 unit for the entry (keys only: the
 * mark's size never reaches the index, and a later mark on an item already listed writes nothing there); clearing
 * it is one UpdateItem and the entry's removal, another index unit (two UpdateItems only when another mark of the
 * same item is still pending, which takes a crash).
 */
const PREFIX = 'ob_';
const WORK = indexes.work;
const LEGACY = indexes.background;

const attributeOf = (eventId: string) => `${PREFIX}${eventId}`;

/** The attributes a new item (PutItem) carries with its mark. */
export function outboxItemAttributes(mark: OutboxMark, pk: string): Record<string, unknown> {
  return {
    [attributeOf(mark.eventId)]: mark.message,
    obCount: 1,
    obWrittenAt: Date.now(),
    [WORK.partitionKey]: workIndex.outboxPartitionOf(mark.orderGroup),
    [WORK.sortKey]: workIndex.outboxSortKey(mark.at, pk),
  };
}

/**
 * What an UpdateItem adds to carry a mark: `SET` clauses, an `ADD` clause, and their names and values. Merge them
 * into the change's own update expression (`SET <change>, ${set} ADD ${add}`). An item already listed keeps its
 * entry (shard and time of its first pending mark), so the index is not written again.
 */
export function outboxUpdate(mark: OutboxMark, pk: string) {
  return {
    set: `#obMark = :obMark, obWrittenAt = :obWrittenAt, #obPk = if_not_exists(#obPk, :obPk), #obSk = if_not_exists(#obSk, :obSk)`,
    add: `obCount :obOne`,
    names: { '#obMark': attributeOf(mark.eventId), '#obPk': WORK.partitionKey, '#obSk': WORK.sortKey },
    values: {
      ':obMark': mark.message,
      ':obPk': workIndex.outboxPartitionOf(mark.orderGroup),
      ':obSk': workIndex.outboxSortKey(mark.at, pk),
      ':obOne': 1,
      ':obWrittenAt': Date.now(),
    },
  };
}

/**
 * The marks an item holds (pending events), each with when the item's latest mark was written (epoch ms; absent on
 * marks written before it was recorded).
 */
export function marksOf(item: Record<string, unknown> | undefined): PendingMark[] {
  if (!item) return [];
  const writtenAt = typeof item.obWrittenAt === 'number' ? { writtenAt: item.obWrittenAt } : {};
  return Object.entries(item)
    .filter(([name, value]) => name.startsWith(PREFIX) && typeof value === 'string')
    .map(([name, value]) => ({ eventId: name.slice(PREFIX.length), message: value as string, ...writtenAt }));
}

/** A mark as read back from its item. */
export interface PendingMark {
  eventId: string;
  message: string;
  /** When the item's latest mark was written, epoch ms. */
  writtenAt?: number;
}

/**
 * Clears one published mark. The usual case, the item's only mark: one UpdateItem that also takes the item out of
 * the sweep's index (and out of the previous layout's background-index entry, for an item marked before it). Otherwise
 * the mark alone goes. A mark already cleared (a retry, the sweep) is no error.
 */
export async function clearOutboxMark(table: DynamoTable, key: { pk: string; sk: string }, eventId: string) {
  const last = await applied(
    updateItem(table, {
      Key: key,
      UpdateExpression: 'REMOVE #obMark, #obPk, #obSk, #legacyPk, #legacySk, obCount, obWrittenAt',
      ConditionExpression: 'attribute_exists(#obMark) AND obCount = :one',
      ExpressionAttributeNames: {
        '#obMark': attributeOf(eventId),
        '#obPk': WORK.partitionKey,
        '#obSk': WORK.sortKey,
        '#legacyPk': LEGACY.partitionKey,
        '#legacySk': LEGACY.sortKey,
      },
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  if (last) return;
  await applied(
    updateItem(table, {
      Key: key,
      UpdateExpression: 'REMOVE #obMark ADD obCount :minus',
      ConditionExpression: 'attribute_exists(#obMark)',
      ExpressionAttributeNames: { '#obMark': attributeOf(eventId) },
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}

/** Which index a shard's entries are in: the work index, or the background index for the previous layout's key. */
function indexOfShard(shard: string) {
  return shard === backgroundIndex.legacyOutboxPartition ? LEGACY : WORK;
}

/**
 * One page of a shard's items with marks written before `before` (epoch ms), oldest first, after `after` (the
 * previous page's `next`). The index finds them; the marks come from the items themselves (one consistent
 * BatchGetItem per page), never from the index: a GSI lags its table on AWS (a mark already cleared would go out
 * again), and dynalite writes an index entry before the item it belongs to, so a crash between the two leaves an
 * entry whose item never existed. Publishing that entry's mark would give one change two ids (its report, retried,
 * writes the item afresh); such an entry is put back and deleted instead, which takes it out of the index.
 */
export async function staleOutboxItems(
  table: DynamoTable,
  shard: string,
  before: number,
  limit: number,
  after?: Record<string, unknown>,
): Promise<StalePage> {
  const index = indexOfShard(shard);
  const page = await queryPage(table, {
    IndexName: index.indexName,
    KeyConditionExpression: '#pk = :pk AND #sk < :before',
    ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
    ExpressionAttributeValues: { ':pk': shard, ':before': workIndex.outboxSortKeyBefore(before) },
    Limit: limit,
    ...(after ? { ExclusiveStartKey: after } : {}),
  });
  const entries = (page.Items ?? []) as Record<string, unknown>[];
  const found = entries.length
    ? await readBatch(
        table,
        entries.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })),
      )
    : [];
  const byKey = new Map(found.map((item) => [`${item.pk}\u0000${item.sk}`, item]));
  const items: StaleItem[] = [];
  const orphans: Record<string, unknown>[] = [];
  for (const entry of entries) {
    const key = { pk: String(entry.pk), sk: String(entry.sk) };
    const item = byKey.get(`${key.pk}\u0000${key.sk}`);
    if (!item) {
      orphans.push(entry);
      continue;
    }
    const marks = marksOf(item).map(({ eventId, message }) => ({ eventId, message }));
    const writtenAt = typeof item.obWrittenAt === 'number' ? { writtenAt: item.obWrittenAt } : {};
    if (marks.length) items.push({ key, marks, ...writtenAt });
  }
  await Promise.all(orphans.map((entry) => removeOrphanEntry(table, entry, index.sortKey)));
  return { items, ...(page.LastEvaluatedKey ? { next: page.LastEvaluatedKey } : {}) };
}

/** An index entry with no item (a torn local write): the item is put back as the entry has it, then deleted. */
async function removeOrphanEntry(table: DynamoTable, entry: Record<string, unknown>, sortKey: string): Promise<void> {
  const key = { pk: String(entry.pk), sk: String(entry.sk) };
  const restored = await applied(putItem(table, { Item: entry, ConditionExpression: 'attribute_not_exists(pk)' }));
  if (!restored) return; // the item exists now (its change was written afresh): nothing to remove
  await applied(
    deleteItem(table, {
      Key: key,
      ConditionExpression: '#obSk = :sk',
      ExpressionAttributeNames: { '#obSk': sortKey },
      ExpressionAttributeValues: { ':sk': entry[sortKey] },
    }),
  );
}

/**
 * The sweep's view of the marks in the table: the work index's outbox shards, and the background index's single
 * `OUTBOX` key where the previous layout listed them (read until it is empty: its items are published and leave it
 * like any other).
 */
export class DynamoUnpublishedEvents implements UnpublishedEvents {
  readonly shards = [...workIndex.outboxPartitions, backgroundIndex.legacyOutboxPartition];
  constructor(private readonly table: DynamoTable) {}
  stale(shard: string, before: number, limit: number, after?: Record<string, unknown>) {
    return staleOutboxItems(this.table, shard, before, limit, after);
  }
  clear(key: { pk: string; sk: string }, eventId: string) {
    return clearOutboxMark(this.table, key, eventId);
  }
}
