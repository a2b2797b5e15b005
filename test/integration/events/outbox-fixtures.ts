import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type DynamoUnpublishedEvents, outboxUpdate } from '#shared/events/adapters/dynamo-outbox.ts';
import { eventIdFor, type OutboxMark } from '#shared/events/outbox.ts';
import type { StaleItem } from '#shared/events/sweep-unpublished.ts';
import { type DynamoTable, updateItem } from '#shared/kernel/aws/dynamo-table.ts';
import { type Channel, DynamoConversationStore } from '#shared/messaging/index.ts';
import { createSecretBox } from '#shared/kernel/secret-box.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/** The table, marks and stores the outbox tests share (each test file calls useOutboxTable() for a table of its own). */

/** The calling test file's table (a live binding: set by its useOutboxTable() hooks). */
export let env: { table: DynamoTable; close(): Promise<void> };

/** A dynalite table for the calling test file: made before its tests, closed after them. */
export function useOutboxTable(): void {
  beforeAll(async () => {
    env = await startTestTable();
  });
  afterAll(async () => env?.close());
}

export const quiet = { info: () => {}, warn: () => {}, error: () => {} };
/** These reports carry no mail: no unsubscribe address is ever asked about. */
export const NO_UNSUBSCRIBES = { isAddressOf: () => false };
export const conversationsOf = () =>
  new DynamoConversationStore(env.table, createSecretBox(randomBytes(32).toString('base64')));
export const mark = (key: string, at = Date.now(), orderGroup = `prj_1/conversation:${key}`): OutboxMark => {
  const eventId = eventIdFor(key, at);
  const body = JSON.stringify({ id: eventId, type: 'message.sent', data: { marked: key } });
  return {
    eventId,
    at,
    message: JSON.stringify({ v: 1, eventId, eventType: 'message.sent', acceptedAt: at, body }),
    orderGroup,
  };
};

/** Another mark on an item, as a change's UpdateItem adds it. */
export async function addMark(key: { pk: string; sk: string }, m: OutboxMark) {
  const u = outboxUpdate(m, key.pk);
  await updateItem(env.table, {
    Key: key,
    UpdateExpression: `SET ${u.set} ADD ${u.add}`,
    ExpressionAttributeNames: u.names,
    ExpressionAttributeValues: u.values,
  });
}

/** Every item the sweep would find, every shard read to its end. */
export async function staleItems(outbox: DynamoUnpublishedEvents, before: number): Promise<StaleItem[]> {
  const items: StaleItem[] = [];
  for (const shard of outbox.shards) {
    let after: Record<string, unknown> | undefined;
    do {
      const page = await outbox.stale(shard, before, 100, after);
      items.push(...page.items);
      after = page.next;
    } while (after);
  }
  return items;
}

export const channel = (): Channel => ({
  channelId: `ch_${randomBytes(5).toString('hex')}`,
  projectId: `prj_${randomBytes(5).toString('hex')}`,
  companyId: 1042,
  type: 'sms',
  name: 'Main',
  address: '+5511999990000',
  provider: { kind: 'sandbox' },
  createdAt: new Date().toISOString(),
});
