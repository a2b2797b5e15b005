import type { OutboxMark } from '../../events/index.ts';
import type { MessageLog, MessageRecord, OutboxPage } from '../message.ts';
import { sentMessageItems } from './dynamo-message-status-store.ts';
import { type DynamoTable, queryPage, writeBatch } from '../../kernel/aws/dynamo-table.ts';
import { collections, inCollection, keys } from '../../contract/keys.ts';

/** Message records are kept 90 days (DynamoDB TTL), the outbox with them. */
const RETENTION_SECONDS = 90 * 86400;

/**
 * Message records under their project and channel in time order: `PRJ#<projectId>` /
 * `MSG#<channelId>#<sentAt>#<messageId>`. One BatchWriteItem per send; a sandbox channel's outbox is a Query of its
 * records, newest first.
 */
export class DynamoMessageLog implements MessageLog {
  constructor(private readonly table: DynamoTable) {}

  /**
   * One BatchWriteItem: the record, its status item (carrying the send's event mark) and its provider-id lookups
   * (dynamo-message-status-store.ts).
   */
  async record(message: MessageRecord, mark: OutboxMark): Promise<void> {
    await writeBatch(
      this.table,
      [
        {
          ...keys.message(message.projectId, message.channelId, message.sentAt, message.messageId),
          message,
          expiresAt: Math.floor(Date.parse(message.sentAt) / 1000) + RETENTION_SECONDS,
        },
        ...sentMessageItems(message, mark),
      ].map((Item) => ({ PutRequest: { Item } })),
    );
  }

  async listOutbox(
    projectId: string,
    channelId: string,
    page: { limit: number; cursor?: string },
  ): Promise<OutboxPage> {
    const out = await queryPage(this.table, {
      ...inCollection(collections.messages(projectId, channelId)),
      ScanIndexForward: false,
      Limit: page.limit,
      ConsistentRead: true,
      ExclusiveStartKey: decodeCursor(page.cursor, projectId, channelId),
    });
    const items = (out.Items ?? []).map((item) => {
      const m = item.message as MessageRecord;
      return { messageId: m.messageId, to: m.to, payload: m.payload, sentAt: m.sentAt };
    });
    return {
      items,
      ...(out.LastEvaluatedKey
        ? { nextCursor: Buffer.from(String(out.LastEvaluatedKey.sk), 'utf8').toString('base64url') }
        : {}),
    };
  }
}

/** A cursor is the last sort key seen, only ever accepted inside the same channel's outbox. */
function decodeCursor(
  cursor: string | undefined,
  projectId: string,
  channelId: string,
): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  const messages = collections.messages(projectId, channelId);
  if (!sk.startsWith(messages.skPrefix)) return undefined;
  return { pk: messages.pk, sk };
}
