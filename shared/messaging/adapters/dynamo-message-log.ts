import type { OutboxMark } from '../../events/index.ts';
import type { MessageLog, MessageRecord, OutboxEntry, OutboxPage } from '../message.ts';
import { sentMessageItems } from './dynamo-message-status-store.ts';
import { type DynamoTable, putItem, queryPageOf, writeBatch } from '../../kernel/aws/dynamo-table.ts';
import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import type { PageRequest } from '../../kernel/page.ts';

/** Message records are kept 90 days (DynamoDB TTL), the outbox with them. */
const RETENTION_SECONDS = 90 * 86400;

/**
 * A send's record is its status item (`MSG#<messageId>`, carrying the event mark) with its provider-id and thread
 * lookups (dynamo-message-status-store.ts), one BatchWriteItem. A sandbox channel's outbox is its own entries under
 * the project and channel in time order (`PRJ#<projectId>` / `MSG#<channelId>#<sentAt>#<messageId>`), listed newest
 * first; only sandbox sends write one. (Every send wrote one until the project's limits came: a copy of the payload,
 * up to 300 KB, on the project's partition on every send, read by nothing but a sandbox's outbox.)
 */
export class DynamoMessageLog implements MessageLog {
  constructor(private readonly table: DynamoTable) {}

  async record(message: MessageRecord, mark: OutboxMark): Promise<void> {
    await writeBatch(
      this.table,
      sentMessageItems(message, mark).map((Item) => ({ PutRequest: { Item } })),
    );
  }

  async deliverToOutbox(projectId: string, channelId: string, entry: OutboxEntry): Promise<void> {
    await putItem(this.table, {
      Item: {
        ...keys.message(projectId, channelId, entry.sentAt, entry.messageId),
        message: entry,
        expiresAt: Math.floor(Date.parse(entry.sentAt) / 1000) + RETENTION_SECONDS,
      },
    });
  }

  async listOutbox(projectId: string, channelId: string, page: PageRequest): Promise<OutboxPage> {
    const collection = collections.messages(projectId, channelId);
    const out = await queryPageOf(
      this.table,
      { ...inCollection(collection), ScanIndexForward: false, ConsistentRead: true },
      page,
      pageKeyOf(collection),
    );
    return {
      ...out,
      items: out.items.map((item) => {
        const m = item.message as OutboxEntry;
        return { messageId: m.messageId, to: m.to, payload: m.payload, sentAt: m.sentAt };
      }),
    };
  }
}
