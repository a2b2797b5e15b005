import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** The table and client every DynamoDB adapter works with. */
export interface DynamoTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException'
  );
}

/** Key builders: all keys are written here so the item layout reads in one place. */
export const keys = {
  project: (projectId: string) => ({ pk: `PRJ#${projectId}`, sk: 'PRJ' }),
  token: (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  credits: (projectId: string, month: string) => ({ pk: `PRJ#${projectId}`, sk: `CREDITS#${month}` }),
  rateLimit: (key: string) => ({ pk: `RL#${key}`, sk: 'RL' }),
  idempotency: (scopedKeyHash: string) => ({ pk: `IDEM#${scopedKeyHash}`, sk: 'IDEM' }),
  channel: (projectId: string, channelId: string) => ({ pk: `PRJ#${projectId}`, sk: `CH#${channelId}` }),
  integration: (projectId: string, integrationId: string) => ({ pk: `PRJ#${projectId}`, sk: `INT#${integrationId}` }),
  /** Guard item: which webhook holds the project's one enabled-general-webhook slot. */
  generalWebhook: (projectId: string) => ({ pk: `PRJ#${projectId}`, sk: 'GENERAL_WEBHOOK' }),
  /** A sent message, under its channel in time order (`sortableTime` sorts as text). Sandbox ones form the outbox. */
  message: (projectId: string, channelId: string, sortableTime: string, messageId: string) => ({
    pk: `PRJ#${projectId}`,
    sk: `MSG#${channelId}#${sortableTime}#${messageId}`,
  }),
  /**
   * A webhook delivery (one event for one webhook, attempts appended). Its own partition per webhook, not under
   * `PRJ#`: every attempt writes it, and a busy project would otherwise put all its delivery writes on one key.
   * Delivery ids start with the event time, so one Query lists a webhook's deliveries newest first.
   */
  delivery: (projectId: string, integrationId: string, deliveryId: string) => ({
    pk: `DLV#${projectId}#${integrationId}`,
    sk: deliveryId,
  }),
  /**
   * Index entry (gsi1) of a delivery while it is `failed`: sparse, per webhook, sorted by delivery id, which starts
   * with the event time; `recover` finds a window of failures with one Query (shared/webhooks/recover.ts).
   */
  failedDelivery: (projectId: string, integrationId: string, deliveryId: string) => ({
    gsi1pk: `DLVFAILED#${projectId}#${integrationId}`,
    gsi1sk: deliveryId,
  }),
  /** When the next delivery attempt to a paced webhook may start (`rateLimitPerSecond`, shared/webhooks/pacing.ts). */
  webhookPace: (projectId: string, integrationId: string) => ({ pk: `PACE#${projectId}#${integrationId}`, sk: 'PACE' }),
  /** Whether a webhook has been failing and since when (written only when that changes). */
  webhookHealth: (projectId: string, integrationId: string) => ({
    pk: `PRJ#${projectId}`,
    sk: `WHHEALTH#${integrationId}`,
  }),
};

/** ExpressionAttributeValues without the undefined entries; undefined when none is left (DynamoDB rejects `{}`). */
export function attributeValues(values: Record<string, unknown>): Record<string, unknown> | undefined {
  const defined = Object.entries(values).filter(([, v]) => v !== undefined);
  return defined.length ? Object.fromEntries(defined) : undefined;
}

/** Runs a conditional write: true when it applied, false when its condition failed; any other error propagates. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
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
    const out = await table.client.send(
      new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey: startKey }),
    );
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}
