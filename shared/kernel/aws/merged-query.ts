import { type DynamoTable, queryPage } from './dynamo-table.ts';

/** A listing spread over several partitions (a busy key's shards), read as one list in sort-key order. */
export interface MergedQuery {
  /** The partitions to read; a sort key appears in at most one of them. */
  partitions: readonly string[];
  /** The index they are in (the table when absent), and its key attributes. */
  indexName?: string;
  partitionKey: string;
  sortKey: string;
  descending: boolean;
  /** Inclusive bounds on the sort key. */
  from?: string;
  to?: string;
  /** Where a previous page stopped (its `next`): the listing goes on after this sort key. */
  after?: string;
  filter?: string;
  projection?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  consistent?: boolean;
  limit: number;
  /** Query calls one page may make (a filter that drops most items ends the page early, with `next`). */
  maxCalls?: number;
  /**
   * The items are spread over the partitions by a hash (each as likely in any): a partition's part of a page is then
   * binomial, and each is first asked for its mean plus three standard deviations (about 1.5 times its share at 251
   * items over 8, 1.8 at 101) instead of twice its share. Fewer items read and not returned, and a second read for
   * about one page in a hundred.
   */
  hashed?: boolean;
}

interface Partition {
  pk: string;
  buffer: Record<string, unknown>[];
  startKey?: Record<string, unknown>;
  /** The sort key of the last item this partition's Queries evaluated: it has nothing unread before it. */
  evaluated?: string;
  done: boolean;
  size: number;
}

/**
 * One page of a listing kept in several partitions, in sort-key order across all of them, as if it were one
 * partition: each partition is queried for a few items (about twice its share of the page), and again, with more,
 * only while an item cannot be placed without it (its next unread item might come first). An item is returned once
 * no partition can still hold one before it.
 *
 * `next` is a position, not a partition's key: the sort key after which the listing goes on (the last item returned,
 * or, when the call budget ran out first, the furthest point every partition has been read to), so it stays valid
 * whatever was written meanwhile and needs no state per partition. Reads one item more than it returns, so a full
 * last page is not followed by an empty one.
 */
export async function queryMerged(
  table: DynamoTable,
  query: MergedQuery,
): Promise<{ items: Record<string, unknown>[]; next?: string }> {
  const { sortKey, descending, limit } = query;
  /** Whether sort key `a` comes before `b` in the listing. */
  const first = (a: string, b: string) => (descending ? a > b : a < b);
  const keyOf = (item: Record<string, unknown>) => String(item[sortKey]);
  const partitions: Partition[] = query.partitions.map((pk) => ({
    pk,
    buffer: [],
    done: false,
    size: firstReadSize(limit + 1, query.partitions.length, query.hashed === true),
  }));
  const maxCalls = query.maxCalls ?? 4 * partitions.length;
  const range = keyCondition(query);
  if (!range) return { items: [] };
  const condition = range;
  let calls = 0;

  async function read(p: Partition): Promise<void> {
    calls++;
    const out = await queryPage(table, {
      ...(query.indexName ? { IndexName: query.indexName } : {}),
      KeyConditionExpression: condition.expression,
      ExpressionAttributeNames: {
        ...query.names,
        '#mqPk': query.partitionKey,
        ...(condition.usesSortKey || query.projection ? { '#mqSk': sortKey } : {}),
      },
      ExpressionAttributeValues: { ...query.values, ...condition.values, ':mqPk': p.pk },
      ...(query.filter ? { FilterExpression: query.filter } : {}),
      // The sort key is always read back: the merge orders by it.
      ...(query.projection ? { ProjectionExpression: `${query.projection}, #mqSk` } : {}),
      ...(query.consistent ? { ConsistentRead: true } : {}),
      ScanIndexForward: !descending,
      Limit: p.size,
      ...(p.startKey ? { ExclusiveStartKey: p.startKey } : {}),
    });
    const items = ((out.Items ?? []) as Record<string, unknown>[]).filter((item) => keyOf(item) !== query.after);
    p.buffer.push(...items);
    p.startKey = out.LastEvaluatedKey;
    p.done = !out.LastEvaluatedKey;
    if (out.LastEvaluatedKey) p.evaluated = String(out.LastEvaluatedKey[sortKey]);
    p.size = Math.min(1000, p.size * 2);
  }

  await Promise.all(partitions.map(read));
  const items: Record<string, unknown>[] = [];
  while (items.length <= limit) {
    let best: Partition | undefined;
    for (const p of partitions) {
      if (p.buffer.length && (!best || first(keyOf(p.buffer[0]!), keyOf(best.buffer[0]!)))) best = p;
    }
    const head = best && keyOf(best.buffer[0]!);
    // Partitions with nothing buffered that may still hold an item before the head.
    const blocking = partitions.filter(
      (p) => !p.buffer.length && !p.done && (head === undefined || !first(head, p.evaluated!)),
    );
    if (!blocking.length) {
      if (!best) return { items };
      items.push(best.buffer.shift()!);
      continue;
    }
    if (calls + blocking.length > maxCalls) {
      // Everything before the earliest point the blocking partitions reached is read, and nothing buffered is.
      const reached = blocking.map((p) => p.evaluated!).reduce((a, b) => (first(a, b) ? a : b));
      return { items, next: reached };
    }
    await Promise.all(blocking.map(read));
  }
  items.length = limit;
  return { items, next: keyOf(items[limit - 1]!) };
}

/** Items each partition is first asked for, toward a page of `wanted` over `count` partitions. */
function firstReadSize(wanted: number, count: number, hashed: boolean): number {
  const size = hashed ? wanted / count + 3 * Math.sqrt((wanted * (count - 1)) / (count * count)) : (2 * wanted) / count;
  return Math.max(5, Math.ceil(size));
}

/**
 * `#mqPk = :mqPk` and the sort key's range: the bounds, narrowed by where the previous page stopped (inclusive; the
 * item at `after` itself is dropped from the results). Undefined when the range is empty.
 */
function keyCondition(
  query: MergedQuery,
): { expression: string; values: Record<string, unknown>; usesSortKey: boolean } | undefined {
  let { from, to } = query;
  if (query.after !== undefined) {
    if (query.descending) to = to === undefined || query.after < to ? query.after : to;
    else from = from === undefined || query.after > from ? query.after : from;
  }
  const pk = '#mqPk = :mqPk';
  if (from !== undefined && to !== undefined && from > to) return undefined; // an empty range
  if (from !== undefined && to !== undefined) {
    return {
      expression: `${pk} AND #mqSk BETWEEN :mqFrom AND :mqTo`,
      values: { ':mqFrom': from, ':mqTo': to },
      usesSortKey: true,
    };
  }
  if (from !== undefined)
    return { expression: `${pk} AND #mqSk >= :mqFrom`, values: { ':mqFrom': from }, usesSortKey: true };
  if (to !== undefined) return { expression: `${pk} AND #mqSk <= :mqTo`, values: { ':mqTo': to }, usesSortKey: true };
  return { expression: pk, values: {}, usesSortKey: false };
}
