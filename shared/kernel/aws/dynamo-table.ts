import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
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
 * unprocessed is sent again with backoff, and after five tries the write fails.
 */
export async function writeBatch(table: DynamoTable, requests: BatchWriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length; attempt++) {
    if (attempt === 5) throw new Error('DynamoDB left batch items unprocessed');
    if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const out = await table.client.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
    pending = (out.UnprocessedItems?.[table.tableName] ?? []) as BatchWriteRequest[];
  }
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
