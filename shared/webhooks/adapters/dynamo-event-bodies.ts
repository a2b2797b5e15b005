import type { EventBodies } from '../ports.ts';
import { keys } from '../../contract/keys.ts';
import { type DynamoTable, readBatch } from '../../kernel/aws/dynamo-table.ts';
import { GroupedPuts } from '../../kernel/aws/grouped-puts.ts';

/**
 * Kept as long as the payload store keeps a large body (31 days): one day more than a delivery stays listed and
 * retryable after its event.
 */
export const EVENT_BODY_RETENTION_SECONDS = 31 * 86400;

/**
 * Event bodies in DynamoDB (`EVTBODY#<eventId>` / `BODY`), each in its own partition. The fan-out's puts of one batch
 * share BatchWriteItem calls (`GroupedPuts`); a put of the same body again (the fan-out run twice) writes the same
 * item. Reads are one consistent BatchGetItem per 100 events.
 */
export class DynamoEventBodies implements EventBodies {
  private readonly puts: GroupedPuts;

  constructor(
    private readonly table: DynamoTable,
    private readonly now: () => number = Date.now,
  ) {
    this.puts = new GroupedPuts(table);
  }

  put(eventId: string, body: string): Promise<void> {
    return this.puts.put({
      ...keys.eventBody(eventId),
      body,
      expiresAt: Math.floor(this.now() / 1000) + EVENT_BODY_RETENTION_SECONDS,
    });
  }

  async get(eventIds: readonly string[]): Promise<Map<string, string>> {
    if (!eventIds.length) return new Map();
    const items = await readBatch(this.table, eventIds.map(keys.eventBody));
    const prefix = keys.eventBody('').pk;
    return new Map(
      items.flatMap((item) =>
        typeof item.body === 'string' ? [[String(item.pk).slice(prefix.length), item.body] as const] : [],
      ),
    );
  }
}
