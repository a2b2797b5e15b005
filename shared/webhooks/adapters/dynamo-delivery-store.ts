import type { DeliveryRecord, DeliveryStatus } from '../model.ts';
import type { AttemptWrite, DeliveryStore } from '../ports.ts';
import { applied, type DynamoTable, positionCursor, readItem, updateItem } from '../../kernel/aws/dynamo-table.ts';
import { deliveryPartitions, keys, workIndex } from '../../contract/keys.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import { GroupedPuts } from '../../kernel/aws/grouped-puts.ts';
import { queryMerged } from '../../kernel/aws/merged-query.ts';

/** The index attributes of a failed delivery's entry (see `workIndex.failedDeliveriesEntry`). */
const INDEX_NAMES = { '#indexPk': workIndex.partitionKey, '#indexSk': workIndex.sortKey };

/** Deliveries are kept this long after their last attempt (DynamoDB TTL). */
export const DELIVERY_RETENTION_SECONDS = 30 * 86400;

/** A delivery's sort key: its id. */
const DELIVERY_ID = /^dlv_[0-9a-z]+$/;

const LIST_FIELDS = 'deliveryId, projectId, integrationId, eventId, eventType, #status, attempts, nextAttemptAt';

/**
 * Delivery records (`DLV#<projectId>#<integrationId>#<shard>` / `<deliveryId>`, the shard from the delivery id, so a
 * webhook's records spread over 16 partitions): one item per event and webhook, created by its first attempt. Each
 * attempt is one item write, no read before it, no transaction:
 *
 * - a first attempt that succeeded (most deliveries) creates the whole record with a put, and the puts of attempts
 *   that end together share BatchWriteItem calls (`GroupedPuts`: one call per put when they come one at a time);
 * - any other attempt is one UpdateItem that appends to `attempts` and sets the status, never turning a succeeded
 *   delivery back into pending or failed.
 *
 * Decision (measured: bench/history/2026-11-webhooks-for-chat-back-ends.md): the put carries no condition (BatchWriteItem takes none).
 * It writes `succeeded`, so it never undoes a success either; what it can overwrite is a record a duplicate job of
 * the same delivery made first (the fan-out run again after a crash): the delivery ends succeeded as before, and its
 * log shows this attempt instead of both. Per delivery at saturation that is ~0.3 DynamoDB calls instead of 1.
 */
export class DynamoDeliveryStore implements DeliveryStore {
  private readonly firstSuccesses: GroupedPuts;

  constructor(
    private readonly table: DynamoTable,
    private readonly now: () => number = Date.now,
  ) {
    this.firstSuccesses = new GroupedPuts(table);
  }

  async recordAttempt(write: AttemptWrite): Promise<boolean> {
    const nowMs = this.now();
    const expiresAt = Math.floor(nowMs / 1000) + DELIVERY_RETENTION_SECONDS;
    if (write.first && write.status === 'succeeded') {
      await this.firstSuccesses.put({
        ...keys.delivery(write.projectId, write.integrationId, write.deliveryId),
        attempts: [write.attempt],
        status: write.status,
        ...identityOf(write),
        ...keptFromFirstAttempt(write),
        createdAt: nowMs,
        updatedAt: nowMs,
        expiresAt,
      });
      return true;
    }
    const set = [
      'attempts = list_append(if_not_exists(attempts, :empty), :attempt)',
      '#status = :status',
      'createdAt = if_not_exists(createdAt, :now)',
      'updatedAt = :now',
      'expiresAt = :expiresAt',
    ];
    const values: Record<string, unknown> = {
      ':empty': [],
      ':attempt': [write.attempt],
      ':status': write.status,
      ':now': nowMs,
      ':expiresAt': expiresAt,
    };
    for (const [name, value] of Object.entries(identityOf(write))) {
      set.push(`${name} = :${name}`);
      values[`:${name}`] = value;
    }
    // Written by the first attempt that carries them; a later attempt never replaces them.
    for (const [name, value] of Object.entries(keptFromFirstAttempt(write))) {
      set.push(`${name} = if_not_exists(${name}, :${name})`);
      values[`:${name}`] = value;
    }
    if (write.nextAttemptAt !== undefined) {
      set.push('nextAttemptAt = :next');
      values[':next'] = write.nextAttemptAt;
    }
    // A failed delivery is listed in the failed-deliveries index (recover); any other status leaves it.
    const remove = write.nextAttemptAt === undefined ? ['nextAttemptAt'] : [];
    if (write.status === 'failed') {
      const entry = workIndex.failedDeliveriesEntry(write.projectId, write.integrationId, write.deliveryId);
      set.push('#indexPk = :failedPk', '#indexSk = :failedSk');
      Object.assign(values, { ':failedPk': entry[workIndex.partitionKey], ':failedSk': entry[workIndex.sortKey] });
    } else remove.push('#indexPk', '#indexSk');
    let condition: string | undefined;
    if (!write.manual) {
      // A late duplicate of an automatic attempt never turns a succeeded delivery back into pending or failed.
      condition = 'attribute_not_exists(#status) OR #status <> :succeeded';
      values[':succeeded'] = 'succeeded';
    }
    return applied(
      updateItem(this.table, {
        Key: keys.delivery(write.projectId, write.integrationId, write.deliveryId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ...(condition ? { ConditionExpression: condition } : {}),
        ExpressionAttributeNames: { '#status': 'status', ...INDEX_NAMES },
        ExpressionAttributeValues: values,
      }),
    );
  }

  async get(projectId: string, integrationId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const item = await readItem(this.table, keys.delivery(projectId, integrationId, deliveryId));
    return item ? deliveryRecordFromItem(item) : undefined;
  }

  async list(
    projectId: string,
    integrationId: string,
    options: { status?: DeliveryStatus } & PageRequest,
  ): Promise<Page<DeliveryRecord>> {
    const listing = listingOf(projectId, integrationId);
    const after =
      options.cursor === undefined
        ? undefined
        : positionCursor.decode(options.cursor, listing, (position) => DELIVERY_ID.test(position));
    // The webhook's partitions read as one list, newest first; a status filter applies after each Query's limit,
    // so the merge reads on until the page is full (or its call budget ends it early, with a cursor).
    const page = await queryMerged(this.table, {
      partitions: deliveryPartitions(projectId, integrationId),
      partitionKey: 'pk',
      sortKey: 'sk',
      descending: true,
      ...(after !== undefined ? { after } : {}),
      projection: LIST_FIELDS,
      names: { '#status': 'status' },
      ...(options.status ? { filter: '#status = :status', values: { ':status': options.status } } : {}),
      consistent: true,
      limit: options.limit,
    });
    return {
      items: page.items.map(deliveryRecordFromItem),
      ...(page.next !== undefined ? { nextCursor: positionCursor.encode(listing, page.next) } : {}),
    };
  }

  async markRetrying(
    projectId: string,
    integrationId: string,
    deliveryId: string,
    attemptsSeen: number,
  ): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.delivery(projectId, integrationId, deliveryId),
        UpdateExpression: 'SET #status = :pending, updatedAt = :now REMOVE nextAttemptAt, #indexPk, #indexSk',
        ConditionExpression: 'attribute_exists(pk) AND size(attempts) = :seen',
        ExpressionAttributeNames: { '#status': 'status', ...INDEX_NAMES },
        ExpressionAttributeValues: { ':pending': 'pending', ':now': this.now(), ':seen': attemptsSeen },
      }),
    );
  }
}

/** What a webhook's delivery-log cursors are tagged with (the form earlier cursors of the same log had). */
function listingOf(projectId: string, integrationId: string) {
  return { pk: `DLV#${projectId}#${integrationId}` };
}

/** The attributes naming the delivery, set by every attempt. */
function identityOf(write: AttemptWrite) {
  const { deliveryId, projectId, integrationId, eventId, eventType } = write;
  return { deliveryId, projectId, integrationId, eventId, eventType };
}

/** A small body or a large one's S3 key, and the ordering key, which only a first attempt carries. */
function keptFromFirstAttempt(write: AttemptWrite): Record<string, string> {
  return Object.fromEntries(
    (['body', 'bodyRef', 'orderKey'] as const).flatMap((name) =>
      write[name] !== undefined ? [[name, write[name]]] : [],
    ),
  );
}

/** A delivery item as the record the use cases see (also read by the failed-deliveries index). */
export function deliveryRecordFromItem(item: Record<string, unknown>): DeliveryRecord {
  return {
    deliveryId: item.deliveryId as string,
    projectId: item.projectId as string,
    integrationId: item.integrationId as string,
    eventId: item.eventId as string,
    eventType: item.eventType as string,
    status: item.status as DeliveryStatus,
    attempts: (item.attempts as DeliveryRecord['attempts'] | undefined) ?? [],
    ...(typeof item.nextAttemptAt === 'number' ? { nextAttemptAt: item.nextAttemptAt } : {}),
    ...(typeof item.body === 'string' ? { body: item.body } : {}),
    ...(typeof item.bodyRef === 'string' ? { bodyRef: item.bodyRef } : {}),
    ...(typeof item.orderKey === 'string' ? { orderKey: item.orderKey } : {}),
  };
}
