import { pollLog } from '../../contract/keys.ts';
import { type DynamoTable, writeBatch } from '../../kernel/aws/dynamo-table.ts';
import { queryMerged } from '../../kernel/aws/merged-query.ts';
import { POLL_RETENTION_DAYS, type EventLog, type EventLogPage, type LoggedEvent } from '../event-log.ts';

/** BatchWriteItem takes at most this many requests. */
const BATCH = 25;

/**
 * Events for pollers in DynamoDB, over the project's `POLL_PARTITIONS` partitions (`pollLog`, shared/contract/keys.ts),
 * each sorted by the time the fan-out stored the event. A batch's events share BatchWriteItem calls; a read merges the
 * partitions oldest first (`queryMerged`). Items expire a day after the 7 days (DynamoDB's TTL deletes late), and a
 * read skips any older than the 7 days.
 */
export class DynamoEventLog implements EventLog {
  constructor(
    private readonly table: DynamoTable,
    private readonly now: () => number = Date.now,
  ) {}

  async append(events: readonly LoggedEvent[]): Promise<void> {
    const at = this.now();
    const expiresAt = Math.floor(at / 1000) + (POLL_RETENTION_DAYS + 1) * 86400;
    const items = events.map((e, place) => ({
      ...pollLog.entry(e.projectId, e.eventId, at, place),
      eventId: e.eventId,
      eventType: e.eventType,
      ...(e.body !== undefined ? { body: e.body } : {}),
      ...(e.bodyRef !== undefined ? { bodyRef: e.bodyRef } : {}),
      expiresAt,
    }));
    const calls: Promise<void>[] = [];
    for (let i = 0; i < items.length; i += BATCH) {
      calls.push(
        writeBatch(
          this.table,
          items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } })),
        ),
      );
    }
    await Promise.all(calls);
  }

  async read(projectId: string, after: string, beforeMs: number, limit: number): Promise<EventLogPage> {
    const page = await queryMerged(this.table, {
      partitions: pollLog.partitions(projectId),
      partitionKey: 'pk',
      sortKey: 'sk',
      descending: false,
      from: pollLog.positionAt(this.now() - POLL_RETENTION_DAYS * 86400_000),
      ...(after ? { after } : {}),
      // Positions stored at `beforeMs` or later sort after this one (they are longer).
      to: pollLog.positionAt(beforeMs - 1),
      limit,
      maxCalls: 3,
      // Events are spread by a hash of their id: each partition holds close to its eighth of a page.
      hashed: true,
      // What a page shows, and the position (the sort key, always read back): not the keys or the expiry.
      projection: '#eventId, #eventType, #body, #bodyRef',
      names: { '#eventId': 'eventId', '#eventType': 'eventType', '#body': 'body', '#bodyRef': 'bodyRef' },
    });
    const items = page.items.map((item) => ({
      projectId,
      eventId: String(item.eventId),
      eventType: String(item.eventType),
      ...(typeof item.body === 'string' ? { body: item.body } : {}),
      ...(typeof item.bodyRef === 'string' ? { bodyRef: item.bodyRef } : {}),
      position: String(item.sk),
    }));
    const last = items.at(-1)?.position;
    return { items, next: page.next ?? last ?? after, exhausted: page.next === undefined };
  }
}
