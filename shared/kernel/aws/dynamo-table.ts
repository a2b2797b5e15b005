import { createHash } from 'node:crypto';
import { type AttributeValue, ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ValidationError } from '../domain-error.ts';
import { DependencyOverloadedError } from '../overload.ts';
import { sendPlainly } from './plain-answer.ts';
import type { Page, PageRequest } from '../page.ts';

/** The table and client every DynamoDB adapter works with. */
export interface DynamoTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException'
  );
}

/** ExpressionAttributeValues without the undefined entries; undefined when none is left (DynamoDB rejects `{}`). */
export function attributeValues(values: Record<string, unknown>): Record<string, unknown> | undefined {
  const defined = Object.entries(values).filter(([, v]) => v !== undefined);
  return defined.length ? Object.fromEntries(defined) : undefined;
}

/**
 * How a conditional write ended: applied, with the command's output; or refused by its condition, with the item
 * as it was when the write asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`; DynamoDB sends it, dynalite
 * does not), in DynamoDB's attribute-value form (the document client does not convert it).
 */
export type ConditionalWrite<T> =
  | { applied: true; output: T }
  | { applied: false; itemBefore: Record<string, AttributeValue> | undefined };

/**
 * Every conditional write of the adapters runs through here: a failed condition is an answer, not an error
 * (a stale version, a spent balance, a claim someone else holds); any other error propagates.
 */
export async function conditionalWrite<T>(write: Promise<T>): Promise<ConditionalWrite<T>> {
  try {
    return { applied: true, output: await write };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { applied: false, itemBefore: (error as { Item?: Record<string, AttributeValue> }).Item };
  }
}

/** Runs a conditional write: true when it applied, false when its condition failed; any other error propagates. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  return (await conditionalWrite(write)).applied;
}

/** One request of a BatchWriteItem on the table. */
export type BatchWriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Items written (or deleted) together in one BatchWriteItem (at most 25), not atomically: what DynamoDB leaves
 * unprocessed is sent again with backoff, and after five tries the write fails as an overload (DynamoDB leaves items
 * unprocessed when their partitions are throttled).
 */
export async function writeBatch(table: DynamoTable, requests: BatchWriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length; attempt++) {
    if (attempt === 5) throw new DependencyOverloadedError('DynamoDB left batch items unprocessed');
    if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const out = await table.client.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
    pending = (out.UnprocessedItems?.[table.tableName] ?? []) as BatchWriteRequest[];
  }
}

/** BatchGetItem takes at most this many keys per request. */
const BATCH_GET_KEYS = 100;

/** A BatchGetItem's projection: `attributes` and the key attributes (kept to tell the items apart). */
function batchProjection(attributes: readonly string[] | undefined) {
  const names = attributes && ['pk', 'sk', ...new Set(attributes)];
  return (
    names && {
      ProjectionExpression: names.map((_, i) => `#a${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
    }
  );
}

/** Asks `get` for the keys it has not processed yet until none is left: with backoff, at most five tries. */
async function untilProcessed<K, I>(keys: K[], get: (pending: K[]) => Promise<{ items: I[]; left: K[] }>) {
  const items: I[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length; attempt++) {
    if (attempt === 5) throw new DependencyOverloadedError('DynamoDB left batch keys unprocessed');
    if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const out = await get(pending);
    items.push(...out.items);
    pending = out.left;
  }
  return items;
}

/**
 * The items under `keys`, strongly consistent, in one BatchGetItem (more than 100 keys: several, in parallel, so still
 * one round trip's wait). Keys DynamoDB leaves unprocessed are asked again with backoff; after five tries it fails.
 * Returned in no particular order; missing items are simply absent. Duplicate keys are asked once. `attributes`
 * narrows each item to those (its `pk` and `sk` always kept, to tell the items apart).
 */
export async function readBatch(
  table: DynamoTable,
  keys: readonly { pk: string; sk: string }[],
  attributes?: readonly string[],
): Promise<Record<string, unknown>[]> {
  const projection = batchProjection(attributes);
  const unique = [...new Map(keys.map((k) => [`${k.pk}\u0000${k.sk}`, k])).values()];
  const chunks: { pk: string; sk: string }[][] = [];
  for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) chunks.push(unique.slice(i, i + BATCH_GET_KEYS));
  const found = await Promise.all(
    chunks.map((chunk) =>
      untilProcessed<Record<string, unknown>, Record<string, unknown>>(chunk, async (pending) => {
        const out = await table.client.send(
          new BatchGetCommand({
            RequestItems: { [table.tableName]: { Keys: pending, ConsistentRead: true, ...projection } },
          }),
        );
        return {
          items: (out.Responses?.[table.tableName] ?? []) as Record<string, unknown>[],
          left: (out.UnprocessedKeys?.[table.tableName]?.Keys ?? []) as Record<string, unknown>[],
        };
      }),
    ),
  );
  return found.flat();
}

/** An item as DynamoDB sends it: each attribute a typed value (`{ S: 'text' }`, `{ M: { … } }`). */
export type StoredItem = Record<string, AttributeValue>;

/**
 * The same strongly consistent read as {@link readBatch}, for a few distinct keys of strings (at most 100), with the
 * items left in DynamoDB's form: sent as the low-level command with the keys written in that form here, so the
 * document client's marshalling (its middleware added to each of its commands on every call, then both ways over the
 * whole request and answer) is skipped, and so is the SDK's schema walk of both ({@link sendPlainly}). For the read on
 * every request with a project key; the caller converts only what it uses ({@link fromStored}).
 */
export async function readStoredBatch(
  table: DynamoTable,
  keys: readonly { pk: string; sk: string }[],
  attributes?: readonly string[],
): Promise<StoredItem[]> {
  if (keys.length > BATCH_GET_KEYS) throw new Error(`readStoredBatch takes at most ${BATCH_GET_KEYS} keys`);
  const projection = batchProjection(attributes);
  const client = table.client as unknown as DynamoDBClient;
  const stored = keys.map((k) => ({ pk: { S: k.pk }, sk: { S: k.sk } }));
  return untilProcessed<StoredItem, StoredItem>(stored, async (pending) => {
    const out = await sendPlainly(client, 'BatchGetItem', {
      RequestItems: { [table.tableName]: { Keys: pending, ConsistentRead: true, ...projection } },
    });
    return {
      items: out.Responses?.[table.tableName] ?? [],
      left: out.UnprocessedKeys?.[table.tableName]?.Keys ?? [],
    };
  });
}

/** An item of DynamoDB's form as the document client gives it (the same conversion, the same options). */
export function fromStored(item: StoredItem): Record<string, unknown> {
  return unmarshall(item);
}

/** Every item a Query returns, page after page. */
export async function queryAll(
  table: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await queryPage(table, { ...input, ExclusiveStartKey: startKey });
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

type WithoutTable<T> = Omit<T, 'TableName'>;

/**
 * The item under `key`, or undefined: a strongly consistent GetItem, as every read of the adapters is (a read that
 * follows a write must see it); `projection` narrows it to some attributes.
 */
export async function readItem(
  table: DynamoTable,
  key: Record<string, unknown>,
  projection?: Pick<GetCommandInput, 'ProjectionExpression' | 'ExpressionAttributeNames'>,
): Promise<Record<string, unknown> | undefined> {
  const out = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true, ...projection }),
  );
  return out.Item;
}

/**
 * The string attributes `fields` of the item under `key` (a key of strings), or undefined: the same strongly
 * consistent GetItem as {@link readItem}, sent as the low-level command with its key already in DynamoDB's form, so
 * the document client's marshalling middleware (added to each of its commands on every call) is skipped. For a read
 * on every request (the project key's check): about a quarter less of the SDK's CPU
 * (bench/history/2026-12-tenancy-final.md), and the SDK's schema walk of request and answer left out too
 * ({@link sendPlainly}). Attributes other than strings are left out.
 */
export async function readStrings<F extends string>(
  table: DynamoTable,
  key: Record<string, string>,
  fields: readonly F[],
): Promise<Partial<Record<F, string>> | undefined> {
  const out = await sendPlainly(table.client as unknown as DynamoDBClient, 'GetItem', {
    TableName: table.tableName,
    Key: Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { S: value }])),
    ConsistentRead: true,
    ProjectionExpression: fields.map((_, i) => `#f${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(fields.map((f, i) => [`#f${i}`, f])),
  });
  if (!out.Item) return undefined;
  const found: Partial<Record<F, string>> = {};
  for (const f of fields) {
    const value = out.Item[f]?.S;
    if (value !== undefined) found[f] = value;
  }
  return found;
}

/** PutItem on the table. */
export function putItem(table: DynamoTable, input: WithoutTable<PutCommandInput>) {
  return table.client.send(new PutCommand({ TableName: table.tableName, ...input }));
}

/** UpdateItem on the table. */
export function updateItem(table: DynamoTable, input: WithoutTable<UpdateCommandInput>) {
  return table.client.send(new UpdateCommand({ TableName: table.tableName, ...input }));
}

/** DeleteItem on the table. */
export function deleteItem(table: DynamoTable, input: WithoutTable<DeleteCommandInput>) {
  return table.client.send(new DeleteCommand({ TableName: table.tableName, ...input }));
}

/** One page of a Query on the table (see {@link queryAll} for every page). */
export function queryPage(table: DynamoTable, input: WithoutTable<QueryCommandInput>) {
  return table.client.send(new QueryCommand({ TableName: table.tableName, ...input }));
}

/** How a listing's items are keyed, so its cursors can be made and checked. */
export interface PageKey {
  /** The key attributes of an item as the query reads it: the index's, then the table's for an index query. */
  attributes: readonly string[];
  /** The attributes every item of the listing shares (the partition queried): checked, never carried in a cursor. */
  fixed: Readonly<Record<string, string>>;
  /** Whether a key decoded from a cursor can be one of this listing's (the sort key's prefix, an id's form). */
  accepts?: (key: Readonly<Record<string, string>>) => boolean;
}

/** At most this many Query calls fill one page when a filter drops items (the rest of the page comes next time). */
const MAX_QUERIES_PER_PAGE = 20;

/**
 * One page of a Query in key order. Reads one item more than it returns, so `nextCursor` is given only when another
 * item exists (a full last page is not followed by an empty one); with a `FilterExpression` it queries again until the
 * page is full or {@link MAX_QUERIES_PER_PAGE} calls were made. The cursor is the opaque form (base64url JSON) of the
 * last item's key without the partition, tagged with the partition's digest; a cursor that does not decode to a key of this listing is the caller's
 * mistake: a {@link ValidationError} on `cursor` (400 `VALIDATION_ERROR`), never a read elsewhere.
 */
export async function queryPageOf(
  table: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  page: PageRequest,
  key: PageKey,
): Promise<Page<Record<string, unknown>>> {
  const carried = key.attributes.filter((a) => !(a in key.fixed));
  let startKey = page.cursor === undefined ? undefined : decodePageCursor(page.cursor, carried, key);
  const projection = input.ProjectionExpression
    ? {
        ProjectionExpression: [input.ProjectionExpression, ...key.attributes.map((_, i) => `#pageKey${i}`)].join(', '),
        ExpressionAttributeNames: {
          ...input.ExpressionAttributeNames,
          ...Object.fromEntries(key.attributes.map((a, i) => [`#pageKey${i}`, a])),
        },
      }
    : {};
  const items: Record<string, unknown>[] = [];
  for (let call = 0; call < MAX_QUERIES_PER_PAGE; call++) {
    const out = await queryPage(table, {
      ...input,
      ...projection,
      Limit: page.limit + 1 - items.length,
      ExclusiveStartKey: startKey,
    });
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    startKey = out.LastEvaluatedKey;
    if (!startKey || items.length > page.limit) break;
  }
  if (items.length > page.limit) {
    items.length = page.limit;
    return { items, nextCursor: encodePageCursor(items[page.limit - 1]!, carried, key) };
  }
  return startKey ? { items, nextCursor: encodePageCursor(startKey, carried, key) } : { items };
}

/** The listing a cursor belongs to (its partition), so a cursor of another list or project is refused. */
function listingTag(key: PageKey): string {
  return createHash('sha256').update(JSON.stringify(key.fixed)).digest('base64url').slice(0, 8);
}

function encodePageCursor(item: Record<string, unknown>, carried: readonly string[], key: PageKey): string {
  return Buffer.from(JSON.stringify([listingTag(key), ...carried.map((a) => item[a])]), 'utf8').toString('base64url');
}

function decodePageCursor(cursor: string, carried: readonly string[], key: PageKey): Record<string, string> {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = undefined;
  }
  const decoded =
    Array.isArray(values) &&
    values.length === carried.length + 1 &&
    values[0] === listingTag(key) &&
    values.every((v) => typeof v === 'string' && v)
      ? { ...key.fixed, ...Object.fromEntries(carried.map((a, i) => [a, values[i + 1] as string])) }
      : undefined;
  if (!decoded || (key.accepts && !key.accepts(decoded))) {
    throw new ValidationError('The cursor is not one this list gave.', [
      {
        path: 'cursor',
        message: "Not a cursor of this list: pass the previous page's nextCursor unchanged",
        code: 'invalid_cursor',
      },
    ]);
  }
  return decoded;
}

/**
 * Cursors of a listing read as one list across partitions (`queryMerged`): the same opaque form as
 * {@link queryPageOf}'s, carrying the position (a sort key) instead of a partition's key, tagged with `listing` (the
 * attributes that name the list, e.g. its owner), so a cursor of another list is refused.
 */
export const positionCursor = {
  encode(listing: Readonly<Record<string, string>>, position: string): string {
    return encodePageCursor({ position }, ['position'], { attributes: ['position'], fixed: listing });
  },
  /** The position, or a {@link ValidationError} on `cursor` when it is not one this listing gave. */
  decode(cursor: string, listing: Readonly<Record<string, string>>, accepts: (position: string) => boolean): string {
    return decodePageCursor(cursor, ['position'], {
      attributes: ['position'],
      fixed: listing,
      accepts: (key) => accepts(key.position!),
    }).position!;
  },
};
