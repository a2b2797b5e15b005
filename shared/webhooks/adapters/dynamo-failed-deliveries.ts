import { deliveryRecordFromItem } from './dynamo-delivery-store.ts';
import type { DeliveryRecord } from '../model.ts';
import type { FailedDeliveries, FailedWindow } from '../recover.ts';
import { keys, workIndex } from '../../contract/keys.ts';
import { applied, conditionalWrite, type DynamoTable, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { queryMerged } from '../../kernel/aws/merged-query.ts';

/** Delivery ids start `dlv_` + the event time in base 36 over 9 characters (see `newEventId`, `deliveryIdFor`). */
const idTime = (ms: number) => `dlv_${Math.max(0, ms).toString(36).padStart(9, '0')}`;

/** The index attributes of a failed delivery's entry (see `workIndex.failedDeliveriesEntry`). */
const INDEX_NAMES = { '#indexPk': workIndex.partitionKey, '#indexSk': workIndex.sortKey };
/** A recover cursor: the last delivery id a page returned. */
const DELIVERY_ID = /^dlv_[0-9a-z]+$/;

/**
 * A recover claim older than this belongs to a recover that died before queueing its job (an API request lasts at
 * most 29 s, a worker's continuation 40 s): the next recover may claim the delivery again.
 */
export const STALE_RECOVER_CLAIM_MS = 60_000;

/**
 * A webhook's failed deliveries through the sparse work-index entries the delivery store writes while a delivery is
 * `failed` (`workIndex.failedDeliveriesEntry`, in 16 partitions per webhook like its records): a window of event time
 * is one key range per partition, merged oldest first, no scan. Claims are conditional writes on the delivery record
 * itself.
 */
export class DynamoFailedDeliveries implements FailedDeliveries {
  constructor(
    private readonly table: DynamoTable,
    private readonly now: () => number = Date.now,
    private readonly staleClaimMs = STALE_RECOVER_CLAIM_MS,
  ) {}

  async page(
    projectId: string,
    integrationId: string,
    window: FailedWindow,
    cursor?: string,
  ): Promise<{ deliveryIds: string[]; nextCursor?: string }> {
    // `until` is exclusive: the last id of the millisecond before it, then any suffix ('~' sorts after [0-9a-z]).
    const upper = window.until === undefined ? 'dlv_~' : `${idTime(window.until - 1)}~`;
    const after = cursor !== undefined && DELIVERY_ID.test(cursor) ? cursor : undefined;
    const out = await queryMerged(this.table, {
      partitions: workIndex.failedDeliveriesPartitions(projectId, integrationId),
      indexName: workIndex.indexName,
      partitionKey: workIndex.partitionKey,
      sortKey: workIndex.sortKey,
      descending: false,
      from: idTime(window.since),
      to: upper,
      ...(after !== undefined ? { after } : {}),
      limit: 500,
    });
    return {
      deliveryIds: out.items.map((item) => item[workIndex.sortKey] as string),
      ...(out.next !== undefined ? { nextCursor: out.next } : {}),
    };
  }

  async claim(projectId: string, integrationId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.delivery(projectId, integrationId, deliveryId),
        // Claimed, it stays listed among the failed until its attempt records the outcome: a recover that died
        // between this claim and queueing the job leaves it for the next recover, once the claim is stale.
        UpdateExpression: 'SET #status = :pending, updatedAt = :now, recoverClaimedAt = :now REMOVE nextAttemptAt',
        ConditionExpression: '#status = :failed OR (#status = :pending AND recoverClaimedAt < :stale)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':failed': 'failed',
          ':now': this.now(),
          ':stale': this.now() - this.staleClaimMs,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return write.applied && write.output.Attributes ? deliveryRecordFromItem(write.output.Attributes) : undefined;
  }

  async release(projectId: string, integrationId: string, deliveryId: string): Promise<void> {
    // Refused when the delivery is no longer the claimed pending one (its attempt ran meanwhile): nothing to undo.
    const entry = workIndex.failedDeliveriesEntry(projectId, integrationId, deliveryId);
    await applied(
      updateItem(this.table, {
        Key: keys.delivery(projectId, integrationId, deliveryId),
        UpdateExpression:
          'SET #status = :failed, #indexPk = :indexPk, #indexSk = :indexSk, updatedAt = :now REMOVE recoverClaimedAt',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status', ...INDEX_NAMES },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':failed': 'failed',
          ':indexPk': entry[workIndex.partitionKey],
          ':indexSk': entry[workIndex.sortKey],
          ':now': this.now(),
        },
      }),
    );
  }
}
