import type { OutboxMark } from '../../events/index.ts';
import type { MessageLog, MessageRecord, OutboxPage } from '../message.ts';
import { sentMessageItems } from './dynamo-message-status-store.ts';
import { type DynamoTable, queryPageOf, writeBatch } from '../../kernel/aws/dynamo-table.ts';
import { collections, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import type { PageRequest } from '../../kernel/page.ts';

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
    // The record keeps what was sent (the outbox lists it); the conversation and what was said (`text`, `subject`,
    // `template`) are the status item's, and the mail thread ids go to their own items: not copied here as well
    // (they were, since issue 30: ~150 bytes more per send to marshal, sign, parse and store, read by nothing).
    const {
      conversationId: _c,
      contact: _k,
      text: _t,
      subject: _s,
      template: _p,
      threadIds: _i,
      mailRecipients: _r,
      ...sent
    } = message;
    await writeBatch(
      this.table,
      [
        {
          ...keys.message(message.projectId, message.channelId, message.sentAt, message.messageId),
          message: sent,
          expiresAt: Math.floor(Date.parse(message.sentAt) / 1000) + RETENTION_SECONDS,
        },
        ...sentMessageItems(message, mark),
      ].map((Item) => ({ PutRequest: { Item } })),
    );
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
        const m = item.message as MessageRecord;
        return { messageId: m.messageId, to: m.to, payload: m.payload, sentAt: m.sentAt };
      }),
    };
  }
}
