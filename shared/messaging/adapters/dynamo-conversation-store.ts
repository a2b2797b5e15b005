import type { SecretBox } from '../../kernel/secret-box.ts';
import { collections, conversationIndex, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import { previousConversationIndex } from '../../contract/table.ts';
import { clearOutboxMark, marksOf, outboxUpdate } from '../../events/index.ts';
import {
  applied,
  type DynamoTable,
  putItem,
  queryPageOf,
  readBatch,
  readItem,
  updateItem,
} from '../../kernel/aws/dynamo-table.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import type { Channel } from '../channel.ts';
import type {
  ConversationMessage,
  ConversationStore,
  SendLookup,
  SendLookupKeys,
  Suppression,
  SuppressionChange,
} from '../conversation.ts';
import { channelFromItem } from './dynamo-channel-store.ts';
import { statusRecordOf, threadItem } from './dynamo-message-status-store.ts';

/** Conversations are kept as long as the messages (90 days after their last change, DynamoDB TTL). */
const RETENTION_SECONDS = 90 * 86400;
/** A lifted opt-out stays this long (so a late report cannot undo a later change), then goes. */
const LIFTED_RETENTION_SECONDS = 30 * 86400;

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Conversations, suppressions and mail threads in the one table (shared/contract/keys.ts):
 * - `CONV#<channelId>#<contact>`: the contact's last inbound time, moved forward only by a conditional UpdateItem;
 * - `SUPP#<projectId>#<channelId>` / `S#<contact>`: the contact's opt-out, `state` `suppressed` or `lifted`, each
 *   change with its event's mark in the same conditional write, ordered so that a late report never
 *   undoes a later change; lifted ones expire after 30 days;
 * - `THREAD#<channelId>#<Message-ID>`: the conversation a mail belongs to, and for a mail the channel sent, whom it
 *   went to (`sentTo`).
 * The send reads the channel item and its contacts' items with one BatchGetItem.
 */
export class DynamoConversationStore implements ConversationStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly secrets: SecretBox,
  ) {}

  async lookupForSend(projectId: string, channelId: string, wanted: SendLookupKeys): Promise<SendLookup | undefined> {
    const channelKey = keys.channel(projectId, channelId);
    const items = await readBatch(this.table, [
      channelKey,
      ...wanted.windowContacts.map((c) => keys.conversation(channelId, c)),
      ...wanted.suppressionContacts.map((c) => keys.suppression(projectId, channelId, c)),
      ...wanted.threadIds.map((id) => keys.mailThread(channelId, id)),
    ]);
    let channel: Channel | undefined;
    const lastInbound = new Map<string, string>();
    const suppressed = new Map<string, Suppression>();
    const threads = new Map<string, string>();
    for (const item of items) {
      if (item.pk === channelKey.pk && item.sk === channelKey.sk) channel = channelFromItem(item, this.secrets);
      else if (item.sk === 'CONV' && typeof item.lastInboundAt === 'string')
        lastInbound.set(String(item.contact), item.lastInboundAt);
      else if (item.sk === 'THREAD') threads.set(String(item.messageIdHeader), String(item.conversationId));
      else if (item.state === 'suppressed') suppressed.set(String(item.contact), suppressionOf(item));
    }
    return channel ? { channel, lastInbound, suppressed, threads } : undefined;
  }

  async state(projectId: string, channelId: string, contact: string) {
    const items = await readBatch(this.table, [
      keys.conversation(channelId, contact),
      keys.suppression(projectId, channelId, contact),
    ]);
    const conversation = items.find((i) => i.sk === 'CONV');
    const suppression = items.find((i) => i.sk !== 'CONV' && i.state === 'suppressed');
    return {
      ...(typeof conversation?.lastInboundAt === 'string' ? { lastInboundAt: conversation.lastInboundAt } : {}),
      ...(suppression ? { suppression: suppressionOf(suppression) } : {}),
    };
  }

  async touchInbound(channelId: string, contact: string, at: string): Promise<void> {
    // Forward only: a report retried or processed late never closes the window early.
    await applied(
      updateItem(this.table, {
        Key: keys.conversation(channelId, contact),
        UpdateExpression: 'SET lastInboundAt = :at, #contact = :contact, expiresAt = :ttl',
        ConditionExpression: 'attribute_not_exists(lastInboundAt) OR lastInboundAt < :at',
        ExpressionAttributeNames: { '#contact': 'contact' },
        ExpressionAttributeValues: { ':at': at, ':contact': contact, ':ttl': epochSeconds(at) + RETENTION_SECONDS },
      }),
    );
  }

  async threads(channelId: string, messageIds: string[]): Promise<Map<string, string>> {
    if (!messageIds.length) return new Map();
    const items = await readBatch(
      this.table,
      messageIds.map((id) => keys.mailThread(channelId, id)),
    );
    return new Map(items.map((i) => [String(i.messageIdHeader), String(i.conversationId)]));
  }

  async sentMail(channelId: string, messageId: string): Promise<string[] | undefined> {
    const item = await readItem(this.table, keys.mailThread(channelId, messageId));
    return Array.isArray(item?.sentTo) ? item.sentTo.map(String) : undefined;
  }

  async rememberThread(channelId: string, messageId: string, conversationId: string, at: string): Promise<void> {
    // The first mail to claim a Message-ID keeps it: a resent or forged one does not move a thread.
    await applied(
      putItem(this.table, {
        Item: threadItem(channelId, messageId, conversationId, at),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async changeSuppression(change: SuppressionChange): Promise<boolean> {
    const key = keys.suppression(change.projectId, change.channelId, change.contact);
    const outbox = outboxUpdate(change.mark, key.pk);
    const s = change.suppression;
    const names = {
      '#state': 'state',
      '#order': 'changeOrder',
      '#at': 'at',
      '#contact': 'contact',
      '#reason': 'reason',
      '#keyword': 'keyword',
      ...outbox.names,
    };
    if (s) {
      const suppressed = await applied(
        updateItem(this.table, {
          Key: key,
          UpdateExpression:
            `SET #state = :suppressed, #contact = :contact, #reason = :reason, #at = :at, #order = :order` +
            `${s.keyword === undefined ? '' : ', #keyword = :keyword'}, ${outbox.set}` +
            ` REMOVE expiresAt${s.keyword === undefined ? ', #keyword' : ''} ADD ${outbox.add}`,
          ConditionExpression:
            '(attribute_not_exists(#state) OR #state = :lifted) AND (attribute_not_exists(#order) OR #order < :order)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ...outbox.values,
            ':suppressed': 'suppressed',
            ':lifted': 'lifted',
            ':contact': change.contact,
            ':reason': s.reason,
            ':at': s.at,
            ':order': change.order,
            ...(s.keyword === undefined ? {} : { ':keyword': s.keyword }),
          },
        }),
      );
      if (!suppressed) await this.advanceOrder(change, 'suppressed');
      return suppressed;
    }
    const lifted = await applied(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: `SET #state = :lifted, #order = :order, expiresAt = :ttl, ${outbox.set} ADD ${outbox.add}`,
        ConditionExpression: change.force ? '#state = :suppressed' : '#state = :suppressed AND #order < :order',
        ExpressionAttributeNames: { '#state': 'state', '#order': 'changeOrder', ...outbox.names },
        ExpressionAttributeValues: {
          ...outbox.values,
          ':suppressed': 'suppressed',
          ':lifted': 'lifted',
          ':order': change.order,
          ':ttl': Math.floor(change.mark.at / 1000) + LIFTED_RETENTION_SECONDS,
        },
      }),
    );
    if (!lifted && !change.force) await this.advanceOrder(change, 'lifted');
    return lifted;
  }

  /**
   * A change that found the contact already in its state still moves the order forward (no event: nothing changed
   * for the contact), so an older change that arrives after it does not apply: a START the provider timestamped after
   * a STOP wins even when the STOP is delivered later, and so does a second STOP over a START between them. A second
   * conditional write, only on that path; a retried report (same order) changes nothing.
   */
  private async advanceOrder(change: SuppressionChange, state: 'suppressed' | 'lifted'): Promise<void> {
    const names = { '#state': 'state', '#order': 'changeOrder' };
    await applied(
      updateItem(
        this.table,
        state === 'suppressed'
          ? {
              Key: keys.suppression(change.projectId, change.channelId, change.contact),
              UpdateExpression: 'SET #order = :order',
              ConditionExpression: '#state = :suppressed AND #order < :order',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':suppressed': 'suppressed', ':order': change.order },
            }
          : {
              Key: keys.suppression(change.projectId, change.channelId, change.contact),
              UpdateExpression: 'SET #state = :lifted, #contact = :contact, #order = :order, expiresAt = :ttl',
              ConditionExpression:
                '(attribute_not_exists(#state) OR #state = :lifted) AND (attribute_not_exists(#order) OR #order < :order)',
              ExpressionAttributeNames: { ...names, '#contact': 'contact' },
              ExpressionAttributeValues: {
                ':lifted': 'lifted',
                ':contact': change.contact,
                ':order': change.order,
                ':ttl': Math.floor(change.mark.at / 1000) + LIFTED_RETENTION_SECONDS,
              },
            },
      ),
    );
  }

  async pendingSuppressionEvents(projectId: string, channelId: string, contact: string) {
    return marksOf(await readItem(this.table, keys.suppression(projectId, channelId, contact)));
  }

  clearSuppressionEvent(projectId: string, channelId: string, contact: string, eventId: string): Promise<void> {
    return clearOutboxMark(this.table, keys.suppression(projectId, channelId, contact), eventId);
  }

  async listSuppressions(projectId: string, channelId: string, page: PageRequest): Promise<Page<Suppression>> {
    const collection = collections.suppressions(projectId, channelId);
    const out = await queryPageOf(
      this.table,
      {
        ...inCollection(collection, { ':suppressed': 'suppressed' }),
        FilterExpression: '#state = :suppressed',
        ExpressionAttributeNames: { '#state': 'state' },
        ConsistentRead: true,
      },
      page,
      pageKeyOf(collection),
    );
    return { ...out, items: out.items.map(suppressionOf) };
  }

  async listMessages(
    projectId: string,
    channelId: string,
    contact: string,
    page: PageRequest,
  ): Promise<Page<ConversationMessage>> {
    const partition = conversationIndex.partition(projectId, channelId, contact);
    const query = (indexName: string) =>
      queryPageOf(
        this.table,
        {
          IndexName: indexName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': conversationIndex.partitionKey },
          ExpressionAttributeValues: { ':pk': partition },
          ScanIndexForward: false,
        },
        page,
        {
          attributes: [conversationIndex.partitionKey, conversationIndex.sortKey, 'pk', 'sk'],
          fixed: { [conversationIndex.partitionKey]: partition },
          accepts: (key) => /^\d{4}-/.test(key[conversationIndex.sortKey] ?? '') && (key.pk ?? '').startsWith('MSG#'),
        },
      );
    let out: Page<Record<string, unknown>>;
    try {
      out = await query(conversationIndex.indexName);
    } catch (error) {
      // A deployment replacing the index (docs/operations.md): the new one answers only once DynamoDB has filled it.
      if (!isIndexBeingFilled(error)) throw error;
      out = await query(previousConversationIndex.indexName);
    }
    // The index holds keys only: the page's items read in one BatchGetItem, in the index's order. An item gone
    // meanwhile (its retention ended) is left out of the page; the cursor is the index's, so the next page is right.
    const items = await readBatch(
      this.table,
      out.items.map((k) => ({ pk: String(k.pk), sk: String(k.sk) })),
    );
    const byKey = new Map<string, Record<string, unknown>>(items.map((i) => [`${i.pk}\u0000${i.sk}`, i]));
    const found = out.items.flatMap((k): Record<string, unknown>[] => {
      const item = byKey.get(`${k.pk}\u0000${k.sk}`);
      return item ? [item] : [];
    });
    return { ...out, items: found.map(statusRecordOf) };
  }
}

/** DynamoDB refuses a Query on an index it is still filling from the table's items (after the index was added). */
const isIndexBeingFilled = (error: unknown) =>
  error instanceof Error &&
  error.name === 'ValidationException' &&
  /backfill|does not have the specified index/i.test(error.message);

function suppressionOf(item: Record<string, unknown>): Suppression {
  return {
    contact: String(item.contact),
    reason: item.reason as Suppression['reason'],
    at: String(item.at),
    ...(typeof item.keyword === 'string' ? { keyword: item.keyword } : {}),
  };
}
