import { type OutboxMark, outboxUpdate } from '../../events/index.ts';
import { collections, duePartitions, inCollection, keys, pageKeyOf } from '../../contract/keys.ts';
import type { Page, PageRequest } from '../../kernel/page.ts';
import {
  applied,
  type BatchWriteRequest,
  conditionalWrite,
  type DynamoTable,
  putItem,
  queryPage,
  queryPageOf,
  readBatch,
  readItem,
  updateItem,
  writeBatch,
} from '../../kernel/aws/dynamo-table.ts';
import { forEachConcurrently } from '../../kernel/shards.ts';
import type { DeferredMessage, DeferredStatus, DeferredStore, DueEntry } from '../volume/deferred.ts';

/** Kept as long as message records (90 days after it was accepted). */
const RETENTION_SECONDS = 90 * 86400;
const MINUTE = 60_000;
const minuteOf = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;
/** Messages queued at once that share one due entry (a batch's, at most). */
const MAX_GROUP = 1000;

function dueOf(message: DeferredMessage): DueEntry {
  return {
    messageId: message.messageId,
    dueAt: message.sendAt ?? message.createdAt,
    ...(message.sendAt ? { sendAt: message.sendAt } : {}),
  };
}

function dueKey(entry: Pick<DueEntry, 'messageId' | 'dueAt'>) {
  return keys.due(minuteOf(Date.parse(entry.dueAt)), entry.messageId, entry.dueAt);
}

/**
 * Deferred messages on their status items (`MSG#<messageId>`), their due entries under the minute they are due
 * (`DUE#<minute>#<shard>`), and the due sweep's cursor. Every change of a message is one conditional write on its
 * own item, so a worker, a cancel and a reschedule racing each other change it at most once.
 */
export class DynamoDeferredStore implements DeferredStore {
  constructor(private readonly table: DynamoTable) {}

  async create(messages: readonly DeferredMessage[]): Promise<DueEntry[]> {
    const entries: DueEntry[] = [];
    const requests: BatchWriteRequest[] = messages.map((m) => ({
      PutRequest: {
        Item: {
          ...keys.messageStatus(m.messageId),
          ...m,
          direction: 'outbound',
          history: [{ status: m.status, at: m.createdAt }],
          expiresAt: Math.floor(Date.parse(m.createdAt) / 1000) + RETENTION_SECONDS,
        },
      },
    }));
    // A scheduled message has its own entry (it moves alone); those queued at once share one, up to 1,000 ids (about
    // 30 KB): one write where there were as many as messages, for the sweep's partitions as for the request.
    const queued = new Map<string, string[]>();
    for (const m of messages) {
      if (m.sendAt) {
        const entry = dueOf(m);
        entries.push(entry);
        requests.push({ PutRequest: { Item: { ...dueKey(entry), ...entry, expiresAt: dueExpiry(entry) } } });
        requests.push({ PutRequest: { Item: scheduledEntry(m.channelId, m.sendAt, m.messageId) } });
      } else queued.set(m.createdAt, [...(queued.get(m.createdAt) ?? []), m.messageId]);
    }
    for (const [dueAt, ids] of queued)
      for (let i = 0; i < ids.length; i += MAX_GROUP) {
        const messageIds = ids.slice(i, i + MAX_GROUP);
        const group: DueEntry = { messageId: messageIds[0]!, dueAt };
        requests.push({
          PutRequest: { Item: { ...dueKey(group), ...group, messageIds, expiresAt: dueExpiry(group) } },
        });
        for (const messageId of messageIds) entries.push({ messageId, dueAt, group: group.messageId });
      }
    const chunks: BatchWriteRequest[][] = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    await forEachConcurrently(chunks, 32, (chunk) => writeBatch(this.table, chunk));
    return entries;
  }

  async get(messageId: string) {
    const item = await readItem(this.table, keys.messageStatus(messageId));
    if (!item) return undefined;
    const { pk: _pk, sk: _sk, expiresAt: _e, history: _h, direction: _d, ...rest } = item;
    return rest as unknown as DeferredMessage;
  }

  async getMany(messageIds: readonly string[]) {
    const items = await readBatch(
      this.table,
      messageIds.map((id) => keys.messageStatus(id)),
    );
    return new Map(
      items.map((item) => {
        const { pk: _pk, sk: _sk, expiresAt: _e, history: _h, direction: _d, ...rest } = item;
        return [String(item.messageId), rest as unknown as DeferredMessage];
      }),
    );
  }

  async statuses(messageIds: readonly string[]): Promise<Map<string, string>> {
    const items = await readBatch(
      this.table,
      messageIds.map((id) => keys.messageStatus(id)),
    );
    return new Map(items.map((i) => [String(i.messageId), String(i.status)]));
  }

  claim(messageId: string, expected: { status: 'queued' | 'scheduled'; sendAt?: string }): Promise<boolean> {
    return applied(
      updateItem(this.table, {
        Key: keys.messageStatus(messageId),
        UpdateExpression: 'SET #status = :sending, claimedAt = :now',
        ConditionExpression: `#status = :expected${expected.sendAt ? ' AND sendAt = :sendAt' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':sending': 'sending',
          ':expected': expected.status,
          ':now': new Date().toISOString(),
          ...(expected.sendAt ? { ':sendAt': expected.sendAt } : {}),
        },
      }),
    );
  }

  async release(messageId: string, retryUntil: string, rateLimitedTimes: number): Promise<void> {
    await applied(
      updateItem(this.table, {
        Key: keys.messageStatus(messageId),
        UpdateExpression: 'SET #status = :queued, retryUntil = :until, rateLimitedTimes = :times',
        ConditionExpression: '#status = :sending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':sending': 'sending',
          ':until': retryUntil,
          ':times': rateLimitedTimes,
        },
      }),
    );
  }

  async cancel(messageId: string, at: string): Promise<{ changed: boolean; status?: string }> {
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.messageStatus(messageId),
        UpdateExpression: 'SET #status = :canceled, history = list_append(history, :change)',
        ConditionExpression: '#status = :scheduled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':canceled': 'canceled',
          ':scheduled': 'scheduled',
          ':change': [{ status: 'canceled', at }],
        },
      }),
    );
    if (write.applied) return { changed: true };
    return { changed: false, status: (await this.get(messageId))?.status };
  }

  async reschedule(messageId: string, sendAt: string, at: string): Promise<{ changed: boolean; status?: string }> {
    const write = await conditionalWrite(
      updateItem(this.table, {
        Key: keys.messageStatus(messageId),
        UpdateExpression: 'SET sendAt = :sendAt, rescheduledAt = :at',
        ConditionExpression: '#status = :scheduled',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':scheduled': 'scheduled', ':sendAt': sendAt, ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    if (!write.applied) return { changed: false, status: (await this.get(messageId))?.status };
    const channelId = String(write.output.Attributes?.channelId ?? '');
    await putItem(this.table, { Item: scheduledEntry(channelId, sendAt, messageId) });
    // The old due entry (or job already on the queue) finds the message moved and does nothing.
    const entry: DueEntry = { messageId, dueAt: sendAt, sendAt };
    await putItem(this.table, { Item: { ...dueKey(entry), ...entry, expiresAt: dueExpiry(entry) } });
    return { changed: true };
  }

  fail(
    messageId: string,
    from: readonly DeferredStatus[],
    failure: { code: string; message: string; at: string },
    mark: OutboxMark,
  ): Promise<boolean> {
    const key = keys.messageStatus(messageId);
    const outbox = outboxUpdate(mark, key.pk);
    const allowed = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
    return applied(
      updateItem(this.table, {
        Key: key,
        UpdateExpression: `SET #status = :failed, #rank = :rank, #error = :error, errorCode = :code, history = list_append(history, :change), ${outbox.set} ADD ${outbox.add}`,
        ConditionExpression: `#status IN (${Object.keys(allowed).join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status', '#rank': 'rank', '#error': 'error', ...outbox.names },
        ExpressionAttributeValues: {
          ...outbox.values,
          ...allowed,
          ':failed': 'failed',
          ':rank': 3,
          ':error': failure.message,
          ':code': failure.code,
          ':change': [{ status: 'failed', at: failure.at }],
        },
      }),
    );
  }

  async due(fromMs: number, untilMs: number, limit: number): Promise<DueEntry[]> {
    const out: (DueEntry & { messageIds?: string[] })[] = [];
    const until = new Date(untilMs).toISOString();
    for (let minute = minuteOf(fromMs); minute <= untilMs && out.length < limit; minute += MINUTE) {
      const found = await Promise.all(
        duePartitions(minute).map(async (pk) => {
          const page = await queryPage(this.table, {
            KeyConditionExpression: 'pk = :pk AND sk <= :until',
            ExpressionAttributeValues: { ':pk': pk, ':until': `${until}#~` },
            Limit: limit,
            ConsistentRead: true,
          });
          return (page.Items ?? []) as unknown as (DueEntry & { messageIds?: string[] })[];
        }),
      );
      out.push(...found.flat());
    }
    // A shared entry is answered whole (removing one of its messages removes it): the limit counts stored entries.
    return out
      .sort((a, b) => a.dueAt.localeCompare(b.dueAt))
      .slice(0, limit)
      .flatMap(({ messageId, dueAt, sendAt, messageIds }): DueEntry[] =>
        messageIds
          ? messageIds.map((id) => ({ messageId: id, dueAt, group: messageId }))
          : [{ messageId, dueAt, ...(sendAt ? { sendAt } : {}) }],
      );
  }

  async removeDue(entries: readonly DueEntry[]): Promise<void> {
    const stored = new Map(
      entries.map((e) => {
        const key = dueKey({ messageId: e.group ?? e.messageId, dueAt: e.dueAt });
        return [`${key.pk}#${key.sk}`, key];
      }),
    );
    const requests = [...stored.values()].map((Key) => ({ DeleteRequest: { Key } }));
    const chunks: (typeof requests)[] = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    await forEachConcurrently(chunks, 32, (chunk) => writeBatch(this.table, chunk));
  }

  async sweepCursor(): Promise<number | undefined> {
    const item = await readItem(this.table, keys.dueCursor());
    return typeof item?.minute === 'number' ? item.minute : undefined;
  }

  async setSweepCursor(minuteMs: number): Promise<void> {
    await putItem(this.table, { Item: { ...keys.dueCursor(), minute: minuteMs } });
  }
}

/** The console's listing entry of a scheduled message (kept a day past its time; read through the message). */
function scheduledEntry(channelId: string, sendAt: string, messageId: string): Record<string, unknown> {
  return {
    ...keys.channelScheduled(channelId, sendAt, messageId),
    messageId,
    sendAt,
    expiresAt: dueExpiry({ messageId, dueAt: sendAt }),
  };
}

/** A channel's messages still scheduled, by time: a page of listing entries, each checked against its message. */
export async function listScheduled(
  table: DynamoTable,
  channelId: string,
  page: PageRequest,
): Promise<Page<DeferredMessage>> {
  const collection = collections.channelScheduled(channelId);
  const out = await queryPageOf(
    table,
    { ...inCollection(collection), ConsistentRead: true },
    page,
    pageKeyOf(collection),
  );
  const entries = out.items as { messageId: string; sendAt: string }[];
  const messages = await readBatch(
    table,
    entries.map((e) => keys.messageStatus(e.messageId)),
  );
  const byId = new Map(messages.map((m) => [String(m.messageId), m]));
  const items = entries.flatMap((e) => {
    const m = byId.get(e.messageId);
    if (m?.status !== 'scheduled' || m.sendAt !== e.sendAt) return [];
    const { pk: _pk, sk: _sk, expiresAt: _x, history: _h, ...rest } = m;
    return [rest as unknown as DeferredMessage];
  });
  return { ...out, items };
}

/** A due entry nobody enqueued goes away a day after it was due (its message stays, and shows it). */
function dueExpiry(entry: DueEntry): number {
  return Math.floor(Date.parse(entry.dueAt) / 1000) + 86400;
}
