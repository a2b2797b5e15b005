import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  clearOutboxMark,
  DynamoUnpublishedEvents,
  marksOf,
  outboxItemAttributes,
} from '#shared/events/adapters/dynamo-outbox.ts';
import { makeSweepUnpublishedEvents } from '#shared/events/sweep-unpublished.ts';
import { backgroundIndex, workIndex } from '#shared/contract/keys.ts';
import { putItem, queryPage, readItem, writeBatch } from '#shared/kernel/aws/dynamo-table.ts';
import { DynamoMessageLog, DynamoMessageStatusStore, makeApplyReports } from '#shared/messaging/index.ts';
import { RecordingPublisher } from '#test/support/fakes/recording-publisher.ts';
import {
  useOutboxTable,
  env,
  quiet,
  NO_UNSUBSCRIBES,
  conversationsOf,
  mark,
  addMark,
  staleItems,
  channel,
} from './outbox-fixtures.ts';

/**
 * The outbox rule against dynalite: a change and its event's mark in one conditional write; the mark
 * cleared once the event is queued; a retry or the sweep publishing what a crash left marked, under the same id.
 */
useOutboxTable();

describe('outbox marks on DynamoDB items', () => {
  it('a mark written with an item is listed for the sweep once stale, and one UpdateItem clears it and the listing', async () => {
    const key = { pk: `T#${randomBytes(4).toString('hex')}`, sk: 'T' };
    const m = mark('a', Date.now() - 60_000);
    await putItem(env.table, { Item: { ...key, v: 1, ...outboxItemAttributes(m, key.pk) } });
    const outbox = new DynamoUnpublishedEvents(env.table);
    expect((await staleItems(outbox, Date.now())).find((i) => i.key.pk === key.pk)?.marks).toEqual([
      { eventId: m.eventId, message: m.message },
    ]);
    // Not yet stale for a sweep that waits longer.
    expect((await staleItems(outbox, Date.now() - 120_000)).some((i) => i.key.pk === key.pk)).toBe(false);
    await clearOutboxMark(env.table, key, m.eventId);
    const item = await readItem(env.table, key);
    expect(marksOf(item)).toEqual([]);
    expect(item).not.toHaveProperty('gsi3pk');
    expect(item).not.toHaveProperty('obCount');
    expect(item).not.toHaveProperty('obWrittenAt');
    expect((await staleItems(outbox, Date.now())).some((i) => i.key.pk === key.pk)).toBe(false);
    // Cleared twice (a retry, the sweep): no error, nothing changes.
    await clearOutboxMark(env.table, key, m.eventId);
  });

  it('two pending marks on one item: clearing one keeps the other listed', async () => {
    const key = { pk: `T#${randomBytes(4).toString('hex')}`, sk: 'T' };
    const first = mark('delivered', Date.now() - 60_000);
    const second = mark('read', Date.now() - 50_000);
    await putItem(env.table, { Item: { ...key, ...outboxItemAttributes(first, key.pk) } });
    await addMark(key, second);
    expect(
      marksOf(await readItem(env.table, key))
        .map((m) => m.eventId)
        .sort(),
    ).toEqual([first.eventId, second.eventId].sort());
    await clearOutboxMark(env.table, key, first.eventId);
    const outbox = new DynamoUnpublishedEvents(env.table);
    expect((await staleItems(outbox, Date.now())).find((i) => i.key.pk === key.pk)?.marks).toEqual([
      { eventId: second.eventId, message: second.message },
    ]);
    await clearOutboxMark(env.table, key, second.eventId);
    expect(await readItem(env.table, key)).not.toHaveProperty('gsi3pk');
  });
});

describe('the outbox in the work index', () => {
  it('lists an item once, by keys only, in the shard of its order key, whatever its size and later marks', async () => {
    const key = { pk: `T#${randomBytes(4).toString('hex')}`, sk: 'T' };
    const first = mark('big', Date.now() - 60_000, 'prj_1/conversation:c-big');
    await putItem(env.table, { Item: { ...key, history: 'x'.repeat(20_000), ...outboxItemAttributes(first, key.pk) } });
    const second = mark('big-2', Date.now() - 50_000, 'prj_1/conversation:c-big');
    await addMark(key, second);
    const shard = workIndex.outboxPartitionOf('prj_1/conversation:c-big');
    const entries = (
      await queryPage(env.table, {
        IndexName: workIndex.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': workIndex.partitionKey },
        ExpressionAttributeValues: { ':pk': shard },
      })
    ).Items!.filter((entry) => entry.pk === key.pk);
    // One entry, keys only: neither the marks nor the item's 20 KB reach the index.
    expect(entries).toEqual([{ ...key, gsi3pk: shard, gsi3sk: workIndex.outboxSortKey(first.at, key.pk) }]);
    const outbox = new DynamoUnpublishedEvents(env.table);
    const found = (await staleItems(outbox, Date.now())).filter((i) => i.key.pk === key.pk);
    expect(found.map((i) => i.marks.map((m) => m.eventId).sort())).toEqual([[first.eventId, second.eventId].sort()]);
    await clearOutboxMark(env.table, key, first.eventId);
    await clearOutboxMark(env.table, key, second.eventId);
  });

  it('drains a backlog of several pages per shard in one run, each event once, and leaves none listed', async () => {
    const at = Date.now() - 120_000;
    const ours = new Map<string, number>();
    // Four conversations: four shards, each holding several pages of 40.
    const items = Array.from({ length: 600 }, (_, n) => {
      const key = { pk: `BACKLOG#${randomBytes(6).toString('hex')}`, sk: 'T' };
      const m = mark(`backlog-${n}`, at + n, `prj_b/conversation:${n % 4}`);
      ours.set(m.eventId, n);
      return { PutRequest: { Item: { ...key, ...outboxItemAttributes(m, key.pk), obWrittenAt: at + n } } };
    });
    for (let i = 0; i < items.length; i += 25) await writeBatch(env.table, items.slice(i, i + 25));
    const queue = new RecordingPublisher();
    const sweep = makeSweepUnpublishedEvents({
      outbox: new DynamoUnpublishedEvents(env.table),
      queue,
      sweepAfterMs: 30_000,
      log: quiet,
      batch: 40,
    });
    await sweep();
    const published = queue.messages.map((m) => m.eventId).filter((id) => ours.has(id));
    expect(published).toHaveLength(600);
    expect(new Set(published).size).toBe(600);
    // Each conversation's events went out oldest first.
    for (let c = 0; c < 4; c++) {
      const ofConversation = published.map((id) => ours.get(id)!).filter((n) => n % 4 === c);
      expect(ofConversation).toEqual([...ofConversation].sort((x, y) => x - y));
    }
    const left = (await staleItems(new DynamoUnpublishedEvents(env.table), Date.now())).filter((i) =>
      i.key.pk.startsWith('BACKLOG#'),
    );
    expect(left).toEqual([]);
  });

  it('publishes a mark the previous layout listed under the one OUTBOX key, and takes the item out of that index', async () => {
    const key = { pk: `T#${randomBytes(4).toString('hex')}`, sk: 'T' };
    const m = mark('legacy', Date.now() - 60_000);
    // As the previous version wrote a marked item: its whole self in the background index under OUTBOX.
    await putItem(env.table, {
      Item: {
        ...key,
        [`ob_${m.eventId}`]: m.message,
        obCount: 1,
        obWrittenAt: m.at,
        gsi1pk: 'OUTBOX',
        gsi1sk: `${backgroundIndex.sortableMs(m.at)}#${key.pk}`,
      },
    });
    const queue = new RecordingPublisher();
    await makeSweepUnpublishedEvents({
      outbox: new DynamoUnpublishedEvents(env.table),
      queue,
      sweepAfterMs: 30_000,
      log: quiet,
    })();
    expect(queue.messages.filter((e) => e.eventId === m.eventId)).toHaveLength(1);
    const item = await readItem(env.table, key);
    expect(marksOf(item)).toEqual([]);
    expect(item).not.toHaveProperty('gsi1pk');
    expect(item).not.toHaveProperty('gsi1sk');
  });
});

describe('what the outbox costs', () => {
  it('a status report: the provider-id read, the change with its mark, the mark cleared (one write more than before)', async () => {
    const operations: string[] = [];
    env.table.client.middlewareStack.add(
      (next, context) => async (args) => {
        operations.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countOutboxOperations' },
    );
    try {
      const statuses = new DynamoMessageStatusStore(env.table);
      const ch = channel();
      const messageId = `msg_${randomBytes(6).toString('hex')}`;
      const sendMark = mark(`sent:${messageId}`);
      await new DynamoMessageLog(env.table).record(
        {
          messageId,
          projectId: ch.projectId,
          channelId: ch.channelId,
          channelType: 'sms',
          integrationId: 'int_1',
          provider: 'twilio',
          to: '+5511988887777',
          payload: {},
          status: 'sent',
          providerMessageIds: ['SMcost'],
          sentAt: new Date().toISOString(),
          conversationId: 'conv_1',
          contact: '+5511988887777',
        },
        sendMark,
      );
      // As the send does once its event is queued.
      await statuses.clearEvent(messageId, sendMark.eventId);
      const apply = makeApplyReports({
        statuses,
        conversations: conversationsOf(),
        unsubscribe: NO_UNSUBSCRIBES,
        events: new RecordingPublisher(),
        log: quiet,
      });
      operations.length = 0;
      await apply(ch, [
        {
          kind: 'status',
          provider: 'twilio',
          providerMessageId: 'SMcost',
          status: 'delivered',
          at: new Date().toISOString(),
        },
      ]);
      expect(operations, JSON.stringify(operations)).toEqual([
        'GetItemCommand',
        'UpdateItemCommand',
        'UpdateItemCommand',
      ]);
    } finally {
      env.table.client.middlewareStack.remove('countOutboxOperations');
    }
  });
});
