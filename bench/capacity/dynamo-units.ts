import { type AttributeMap, itemSize, projected, sameProjection } from './item-size.ts';
import type { DynamoCall, DynamoWrite } from './recorder.ts';
import type { IndexSchema, TableSchema } from './template.ts';

/**
 * DynamoDB's capacity rules (AWS documentation: "Read/write capacity mode", "Provisioned throughput considerations for
 * global secondary indexes"), applied to recorded calls:
 * - a write costs 1 unit per KB of the larger of the item's before and after images (at least 1); a refused
 *   conditional write costs the same for the item it was checked against, and writes no index;
 * - per index: an item entering it costs one write of its projected entry; leaving it, one (the old entry); moving
 *   within it (its index key changes), two; staying with a projected attribute changed, one (the larger entry);
 *   anything else, none; each lands on the index partition of the entry it writes or deletes;
 * - a strongly consistent read costs 1 unit per 4 KB of the item (at least 1; an item not found, 1), an eventually
 *   consistent one half; a Query the same per 4 KB of the sum of the entries it evaluated (an index's entries being
 *   what it projects), at least one.
 */

/** The load one partition (a concrete key value) of the table or of an index takes. */
export interface PartitionLoad {
  wcu: number;
  rcu: number;
  /** Write and read requests on it (a refused conditional write included). */
  writes: number;
  reads: number;
  /** Bytes added (or removed, negative) to what the table or index stores for good (no expiry time). */
  storedBytes: number;
  /** Bytes stored until they expire (TTL), times the days they are kept. */
  expiringByteDays: number;
}

/** `table` or an index name → partition key value → its load. */
export type Loads = Map<string, Map<string, PartitionLoad>>;

const TABLE = 'table';
const WRITE_UNIT = 1024;
const READ_UNIT = 4096;
/** What DynamoDB adds to each item (and index entry) it stores, for storage (not throughput). */
const STORED_OVERHEAD = 100;

export function emptyLoad(): PartitionLoad {
  return { wcu: 0, rcu: 0, writes: 0, reads: 0, storedBytes: 0, expiringByteDays: 0 };
}

function add(loads: Loads, target: string, partition: string, delta: Partial<PartitionLoad>) {
  const byPartition = loads.get(target) ?? new Map<string, PartitionLoad>();
  loads.set(target, byPartition);
  const load = byPartition.get(partition) ?? emptyLoad();
  for (const [k, v] of Object.entries(delta) as [keyof PartitionLoad, number][]) load[k] += v;
  byPartition.set(partition, load);
}

const writeUnits = (...sizes: number[]) => Math.max(1, Math.ceil(Math.max(...sizes) / WRITE_UNIT));
const stored = (item: AttributeMap | undefined) => (item ? itemSize(item) + STORED_OVERHEAD : 0);
const str = (v: AttributeMap[string] | undefined) => (v === undefined ? undefined : String(Object.values(v)[0]));

/** The entry an item has in an index (its partition and sort key values), or none when it lacks a key attribute. */
function indexEntry(item: AttributeMap | undefined, index: IndexSchema) {
  if (!item) return undefined;
  const partition = str(item[index.partitionKey]);
  const sort = index.sortKey ? str(item[index.sortKey]) : '';
  if (partition === undefined || sort === undefined) return undefined;
  return { partition, sort, entry: projected(item, index.projection) };
}

/** What a change of stored size costs in storage: for good, or for the days until the item expires. */
function storage(bytes: number, expiresInDays: number | undefined): Partial<PartitionLoad> {
  return expiresInDays === undefined ? { storedBytes: bytes } : { expiringByteDays: bytes * expiresInDays };
}

export function addWrite(loads: Loads, schema: TableSchema, write: DynamoWrite, at = Date.now()): void {
  const partition = str(write.key[schema.partitionKey]) ?? '';
  const before = write.before;
  if (write.refused) {
    add(loads, TABLE, partition, { wcu: writeUnits(before ? itemSize(before) : 0), writes: 1 });
    return;
  }
  const after = write.after;
  const ttl = schema.ttlAttribute && after?.[schema.ttlAttribute] ? Number(str(after[schema.ttlAttribute])) : undefined;
  const days = ttl === undefined ? undefined : Math.max(0, (ttl * 1000 - at) / 86_400_000);
  add(loads, TABLE, partition, {
    wcu: writeUnits(before ? itemSize(before) : 0, after ? itemSize(after) : 0),
    writes: 1,
    ...storage(stored(after) - stored(before), days),
  });
  for (const index of schema.indexes) {
    const old = indexEntry(before, index);
    const next = indexEntry(after, index);
    const put = (e: NonNullable<typeof next>, units: number) =>
      add(loads, index.name, e.partition, { wcu: units, writes: 1, ...storage(stored(e.entry), days) });
    const remove = (e: NonNullable<typeof old>) =>
      add(loads, index.name, e.partition, {
        wcu: writeUnits(itemSize(e.entry)),
        writes: 1,
        ...storage(-stored(e.entry), days),
      });
    if (!old && next) put(next, writeUnits(itemSize(next.entry)));
    else if (old && !next) remove(old);
    else if (old && next) {
      if (old.partition !== next.partition || old.sort !== next.sort) {
        remove(old);
        put(next, writeUnits(itemSize(next.entry)));
      } else if (!sameProjection(before!, after!, index.projection)) {
        add(loads, index.name, next.partition, {
          wcu: writeUnits(itemSize(old.entry), itemSize(next.entry)),
          writes: 1,
          ...storage(stored(next.entry) - stored(old.entry), days),
        });
      }
    }
  }
}

export function addReads(loads: Loads, schema: TableSchema, call: DynamoCall): void {
  for (const read of call.reads) {
    const factor = read.consistent ? 1 : 0.5;
    if (!read.query) {
      const size = read.items[0] ? itemSize(read.items[0]) : 0;
      add(loads, TABLE, read.partition, { rcu: Math.max(1, Math.ceil(size / READ_UNIT)) * factor, reads: 1 });
      continue;
    }
    const index = read.index ? schema.indexes.find((i) => i.name === read.index) : undefined;
    const bytes = read.items.reduce((n, item) => n + itemSize(index ? projected(item, index.projection) : item), 0);
    add(loads, read.index ?? TABLE, read.partition, {
      rcu: Math.max(1, Math.ceil(bytes / READ_UNIT)) * factor,
      reads: 1,
    });
  }
}

/** Every partition's load from these calls. */
export function dynamoLoads(schema: TableSchema, calls: DynamoCall[]): Loads {
  const loads: Loads = new Map();
  for (const call of calls) {
    for (const write of call.writes) addWrite(loads, schema, write, call.at);
    addReads(loads, schema, call);
  }
  return loads;
}
