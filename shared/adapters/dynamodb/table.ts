import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

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

/** Every item a Query returns, page after page. */
export async function queryAll(
  table: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await table.client.send(
      new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey: startKey }),
    );
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}
