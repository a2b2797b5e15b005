import { indexes } from '../../contract/table.ts';
import { backgroundIndex } from '../../contract/keys.ts';
import {
  applied,
  deleteItem,
  type DynamoTable,
  putItem,
  queryPage,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import type { OutboxMark } from '../outbox.ts';
import type { UnpublishedEvents } from '../sweep-unpublished.ts';

/**
 * Outbox marks on DynamoDB items (the item whose change produced the event: a message's status item, a report's
 * record). Each mark is one top-level attribute `ob_<eventId>` holding the queue message; `obCount` counts them, and
 * while any is pending the item sits in the background index under `OUTBOX`, sorted by when its first mark was
 * written, for the sweep. An item using this must not use the background index for anything else.
 *
 * Cost: the mark rides in the change's own write; clearing it is one UpdateItem (two only when another mark of the
 * same item is still pending, which takes a crash).
 */
const PREFIX = 'ob_';
const BG = indexes.background;

const attributeOf = (eventId: string) => `${PREFIX}${eventId}`;
const sortKeyOf = (at: number, pk: string) => `${backgroundIndex.sortableMs(at)}#${pk}`;

/** The attributes a new item (PutItem) carries with its mark. */
export function outboxItemAttributes(mark: OutboxMark, pk: string): Record<string, unknown> {
  return {
    [attributeOf(mark.eventId)]: mark.message,
    obCount: 1,
    obWrittenAt: Date.now(),
    [BG.partitionKey]: backgroundIndex.outboxPartition,
    [BG.sortKey]: sortKeyOf(mark.at, pk),
  };
}

/**
 * What an UpdateItem adds to carry a mark: `SET` clauses, an `ADD` clause, and their names and values. Merge them
 * into the change's own update expression (`SET <change>, ${set} ADD ${add}`).
 */
export function outboxUpdate(mark: OutboxMark, pk: string) {
  return {
    set: `#obMark = :obMark, obWrittenAt = :obWrittenAt, #obPk = :obPk, #obSk = if_not_exists(#obSk, :obSk)`,
    add: `obCount :obOne`,
    names: { '#obMark': attributeOf(mark.eventId), '#obPk': BG.partitionKey, '#obSk': BG.sortKey },
    values: {
      ':obMark': mark.message,
      ':obPk': backgroundIndex.outboxPartition,
      ':obSk': sortKeyOf(mark.at, pk),
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
 * the sweep's index. Otherwise the mark alone goes. A mark already cleared (a retry, the sweep) is no error.
 */
export async function clearOutboxMark(table: DynamoTable, key: { pk: string; sk: string }, eventId: string) {
  const names = { '#obMark': attributeOf(eventId), '#obPk': BG.partitionKey, '#obSk': BG.sortKey };
  const last = await applied(
    updateItem(table, {
      Key: key,
      UpdateExpression: 'REMOVE #obMark, #obPk, #obSk, obCount, obWrittenAt',
      ConditionExpression: 'attribute_exists(#obMark) AND obCount = :one',
      ExpressionAttributeNames: names,
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

/**
 * Items with marks written before `before` (epoch ms), oldest first: what the sweep publishes. The index finds them;
 * the marks come from the item itself (a consistent read), never from the index's copy: a GSI lags its table on AWS
 * (a mark already cleared would go out again), and dynalite writes an index entry before the item it belongs to, so
 * a crash between the two leaves an entry whose item never existed. Publishing that entry's mark would give one
 * change two ids (its report, retried, writes the item afresh); such an entry is put back and deleted instead, which
 * takes it out of the index.
 */
export async function staleOutboxItems(
  table: DynamoTable,
  before: number,
  limit: number,
): Promise<{ key: { pk: string; sk: string }; marks: { eventId: string; message: string }[] }[]> {
  const page = await queryPage(table, {
    IndexName: BG.indexName,
    KeyConditionExpression: '#pk = :pk AND #sk < :before',
    ExpressionAttributeNames: { '#pk': BG.partitionKey, '#sk': BG.sortKey },
    ExpressionAttributeValues: {
      ':pk': backgroundIndex.outboxPartition,
      ':before': backgroundIndex.sortableMs(before),
    },
    Limit: limit,
  });
  const found = [];
  for (const entry of page.Items ?? []) {
    const key = { pk: String(entry.pk), sk: String(entry.sk) };
    const item = await readItem(table, key);
    if (!item) {
      await removeOrphanEntry(table, entry);
      continue;
    }
    const marks = marksOf(item);
    if (marks.length) found.push({ key, marks });
  }
  return found;
}

/** An index entry with no item (a torn local write): the item is put back as the entry has it, then deleted. */
async function removeOrphanEntry(table: DynamoTable, entry: Record<string, unknown>): Promise<void> {
  const key = { pk: String(entry.pk), sk: String(entry.sk) };
  const restored = await applied(putItem(table, { Item: entry, ConditionExpression: 'attribute_not_exists(pk)' }));
  if (!restored) return; // the item exists now (its change was written afresh): nothing to remove
  await applied(
    deleteItem(table, {
      Key: key,
      ConditionExpression: '#obSk = :sk',
      ExpressionAttributeNames: { '#obSk': BG.sortKey },
      ExpressionAttributeValues: { ':sk': entry[BG.sortKey] },
    }),
  );
}

/** The sweep's view of the marks in the table. */
export class DynamoUnpublishedEvents implements UnpublishedEvents {
  constructor(private readonly table: DynamoTable) {}
  stale(before: number, limit: number) {
    return staleOutboxItems(this.table, before, limit);
  }
  clear(key: { pk: string; sk: string }, eventId: string) {
    return clearOutboxMark(this.table, key, eventId);
  }
}
