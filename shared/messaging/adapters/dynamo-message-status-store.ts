import type { ProviderKind } from '../channel.ts';
import type { MessageRecord } from '../message.ts';
import {
  previewOf,
  STATUS_RANK,
  type MessageStatusRecord,
  type MessageStatusStore,
  type OutboundStatus,
  type ProviderIdTarget,
} from '../message-status.ts';
import { conversationIndex, keys } from '../../contract/keys.ts';
import { clearOutboxMark, marksOf, outboxItemAttributes, type OutboxMark, outboxUpdate } from '../../events/index.ts';
import {
  applied,
  conditionalWrite,
  type DynamoTable,
  putItem,
  queryPage,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';

/** Kept as long as the message records (90 days, DynamoDB TTL). */
const RETENTION_SECONDS = 90 * 86400;

function expiresAt(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000) + RETENTION_SECONDS;
}

/**
 * The items a send writes besides its message record: the status record and one provider-id lookup per id the
 * provider returned (how a receipt finds the message). Written in the same BatchWriteItem as the record; the status
 * item carries the send's event mark (`message.sent` / `message.failed`).
 */
export function sentMessageItems(message: MessageRecord, mark: OutboxMark): Record<string, unknown>[] {
  const status: MessageStatusRecord = {
    messageId: message.messageId,
    projectId: message.projectId,
    channelId: message.channelId,
    channelType: message.channelType,
    direction: 'outbound',
    provider: message.provider,
    status: message.status,
    to: message.to,
    createdAt: message.sentAt,
    history: [{ status: message.status, at: message.sentAt }],
    ...(message.error === undefined ? {} : { error: message.error }),
    conversationId: message.conversationId,
    contact: message.contact,
    ...previewOf(message.text),
    ...(message.subject === undefined ? {} : { subject: message.subject }),
    ...(message.template === undefined ? {} : { template: message.template }),
  };
  const ttl = expiresAt(message.sentAt);
  const target: ProviderIdTarget = {
    messageId: message.messageId,
    projectId: message.projectId,
    channelId: message.channelId,
    conversationId: message.conversationId,
  };
  return [
    {
      ...keys.messageStatus(message.messageId),
      ...status,
      rank: STATUS_RANK[message.status],
      expiresAt: ttl,
      ...conversationEntry(status),
      ...outboxItemAttributes(mark, keys.messageStatus(message.messageId).pk),
    },
    ...(message.providerMessageIds ?? []).map((id) => ({
      ...keys.providerMessageId(message.provider, id, message.channelId),
      ...target,
      expiresAt: ttl,
    })),
    ...(message.threadIds ?? []).map((id) =>
      threadItem(message.channelId, id, message.conversationId, message.sentAt, message.mailRecipients ?? []),
    ),
  ];
}

/**
 * The item that ties a mail's Message-ID to its conversation. A send writes it with its record and `sentTo` (every
 * address the mail went to): only such an item makes the Message-ID one this channel sent. A received mail's item
 * (written by the inbound worker, never over an existing one) has no `sentTo`.
 */
export function threadItem(
  channelId: string,
  messageIdHeader: string,
  conversationId: string,
  at: string,
  sentTo?: string[],
): Record<string, unknown> {
  return {
    ...keys.mailThread(channelId, messageIdHeader),
    messageIdHeader,
    conversationId,
    ...(sentTo ? { sentTo } : {}),
    expiresAt: expiresAt(at),
  };
}

/** A status item's place in its conversation's listing (none for a record without a contact). */
function conversationEntry(record: MessageStatusRecord): Record<string, unknown> {
  return record.contact === undefined
    ? {}
    : conversationIndex.entry(record.projectId, record.channelId, record.contact, record.createdAt, record.messageId);
}

const BOOKKEEPING = new Set(['obCount', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);

/** A status record from its item (or its conversation index entry). */
export function statusRecordOf(item: Record<string, unknown>): MessageStatusRecord {
  const { pk: _pk, sk: _sk, rank: _rank, expiresAt: _expiresAt, ...record } = item;
  // The outbox's bookkeeping (marks, their count, the sweep's index) and the index entries are not part of the record.
  for (const name of Object.keys(record)) if (name.startsWith('ob_') || BOOKKEEPING.has(name)) delete record[name];
  return record as unknown as MessageStatusRecord;
}

const fromItem = statusRecordOf;

/** A provider-id lookup item's message. */
function targetOf(item: Record<string, unknown>): ProviderIdTarget {
  const { messageId, projectId, channelId, conversationId } = item as unknown as ProviderIdTarget;
  return { messageId, projectId, channelId, ...(conversationId === undefined ? {} : { conversationId }) };
}

/**
 * Message statuses in DynamoDB. Every change is one conditional write on the message's own item, so a provider's
 * retries and concurrent workers move a message at most once per status: the write that loses the race changes
 * nothing and tells its caller so.
 */
export class DynamoMessageStatusStore implements MessageStatusStore {
  constructor(private readonly table: DynamoTable) {}

  async get(messageId: string): Promise<MessageStatusRecord | undefined> {
    const item = await readItem(this.table, keys.messageStatus(messageId));
    return item ? fromItem(item) : undefined;
  }

  async findByProviderId(
    provider: ProviderKind,
    providerMessageId: string,
    channelId?: string,
  ): Promise<ProviderIdTarget | undefined> {
    if (channelId) {
      // The channel's own item; on a miss, the item a send wrote before the lookups were kept per channel, if it is
      // this channel's.
      const item =
        (await readItem(this.table, keys.providerMessageId(provider, providerMessageId, channelId))) ??
        (await readItem(this.table, keys.providerMessageIdUnscoped(provider, providerMessageId)));
      const target = item ? targetOf(item) : undefined;
      return target?.channelId === channelId ? target : undefined;
    }
    // Two channels under one id (only a provider's server the project chose can do that) name no one message.
    const page = await queryPage(this.table, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.providerMessageIdUnscoped(provider, providerMessageId).pk },
      ConsistentRead: true,
      Limit: 2,
    });
    const targets = ((page.Items ?? []) as Record<string, unknown>[]).map(targetOf);
    return new Set(targets.map((t) => t.channelId)).size === 1 ? targets[0] : undefined;
  }

  async advance(
    messageId: string,
    change: { status: OutboundStatus; at: string; error?: string },
    mark: OutboxMark,
  ): Promise<MessageStatusRecord | undefined> {
    const key = keys.messageStatus(messageId);
    const outbox = outboxUpdate(mark, key.pk);
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: key,
        // The change and its event's mark in one conditional write: applied together or not at all.
        UpdateExpression: `SET #status = :status, #rank = :rank, history = list_append(history, :change)${
          change.error === undefined ? '' : ', #error = :error'
        }, ${outbox.set} ADD ${outbox.add}`,
        // Forward only: a lower or equal rank, or anything after read (failed is the highest rank), changes nothing.
        ConditionExpression: 'attribute_exists(pk) AND #rank < :rank AND #status <> :read',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#rank': 'rank',
          ...(change.error === undefined ? {} : { '#error': 'error' }),
          ...outbox.names,
        },
        ExpressionAttributeValues: {
          ...outbox.values,
          ':status': change.status,
          ':rank': STATUS_RANK[change.status],
          ':change': [{ status: change.status, at: change.at }],
          ':read': 'read',
          ...(change.error === undefined ? {} : { ':error': change.error }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return write.applied && write.output.Attributes ? fromItem(write.output.Attributes) : undefined;
  }

  recordInbound(record: MessageStatusRecord, mark: OutboxMark): Promise<boolean> {
    const key = keys.messageStatus(record.messageId);
    return applied(
      putItem(this.table, {
        Item: {
          ...key,
          ...record,
          expiresAt: expiresAt(record.createdAt),
          ...conversationEntry(record),
          ...outboxItemAttributes(mark, key.pk),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async pendingEvents(messageId: string): Promise<{ eventId: string; message: string; writtenAt?: number }[]> {
    return marksOf(await readItem(this.table, keys.messageStatus(messageId)));
  }

  clearEvent(messageId: string, eventId: string): Promise<void> {
    return clearOutboxMark(this.table, keys.messageStatus(messageId), eventId);
  }
}
