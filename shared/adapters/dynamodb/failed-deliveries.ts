import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryRecord, DeliveryStatus } from '../../webhooks/model.ts';
import type { FailedDeliveries, FailedWindow } from '../../webhooks/recover.ts';
import { isConditionFailure, keys, type DynamoTable } from './table.ts';

/** Delivery ids start `dlv_` + the event time in base 36 over 9 characters (see `newEventId`, `deliveryIdFor`). */
const idTime = (ms: number) => `dlv_${Math.max(0, ms).toString(36).padStart(9, '0')}`;

/**
 * A webhook's failed deliveries through the sparse gsi1 entries the delivery store writes while a delivery is
 * `failed` (`keys.failedDelivery`): a window of event time is one key range, no scan. Claims are conditional
 * writes on the delivery record itself.
 */
export class DynamoFailedDeliveries implements FailedDeliveries {
  constructor(
    private readonly table: DynamoTable,
    private readonly now: () => number = Date.now,
  ) {}

  async page(
    projectId: string,
    integrationId: string,
    window: FailedWindow,
    cursor?: string,
  ): Promise<{ deliveryIds: string[]; nextCursor?: string }> {
    const index = keys.failedDelivery(projectId, integrationId, '');
    // `until` is exclusive: the last id of the millisecond before it, then any suffix ('~' sorts after [0-9a-z]).
    const upper = window.until === undefined ? 'dlv_~' : `${idTime(window.until - 1)}~`;
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':from': idTime(window.since), ':to': upper },
        ProjectionExpression: 'sk',
        Limit: 500,
        ...(cursor ? { ExclusiveStartKey: decodeCursor(cursor) } : {}),
      }),
    );
    const deliveryIds = (out.Items ?? []).map((item) => item.sk as string);
    return {
      deliveryIds,
      ...(out.LastEvaluatedKey
        ? { nextCursor: Buffer.from(JSON.stringify(out.LastEvaluatedKey)).toString('base64url') }
        : {}),
    };
  }

  async claim(projectId: string, integrationId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.delivery(projectId, integrationId, deliveryId),
          UpdateExpression: 'SET #status = :pending, updatedAt = :now REMOVE nextAttemptAt, gsi1pk, gsi1sk',
          ConditionExpression: '#status = :failed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending', ':failed': 'failed', ':now': this.now() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? toRecord(out.Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async release(projectId: string, integrationId: string, deliveryId: string): Promise<void> {
    const index = keys.failedDelivery(projectId, integrationId, deliveryId);
    try {
      await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.delivery(projectId, integrationId, deliveryId),
          UpdateExpression: 'SET #status = :failed, gsi1pk = :gpk, gsi1sk = :gsk, updatedAt = :now',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':failed': 'failed',
            ':gpk': index.gsi1pk,
            ':gsk': index.gsi1sk,
            ':now': this.now(),
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

function decodeCursor(cursor: string): Record<string, unknown> | undefined {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof key.gsi1pk === 'string' && typeof key.gsi1sk === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

function toRecord(item: Record<string, unknown>): DeliveryRecord {
  return {
    deliveryId: item.deliveryId as string,
    projectId: item.projectId as string,
    integrationId: item.integrationId as string,
    eventId: item.eventId as string,
    eventType: item.eventType as string,
    status: item.status as DeliveryStatus,
    attempts: (item.attempts as DeliveryRecord['attempts'] | undefined) ?? [],
    ...(typeof item.body === 'string' ? { body: item.body } : {}),
    ...(typeof item.bodyRef === 'string' ? { bodyRef: item.bodyRef } : {}),
  };
}
