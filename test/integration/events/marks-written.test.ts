import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onMarksWritten } from '#local/work-signal.ts';
import { clearOutboxMark, outboxItemAttributes, outboxUpdate } from '#shared/events/adapters/dynamo-outbox.ts';
import { eventIdFor, type OutboxMark } from '#shared/events/outbox.ts';
import { type DynamoTable, putItem, updateItem } from '#shared/kernel/aws/dynamo-table.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { writtenSignals } from '#test/support/written-signals.ts';

/**
 * The local event sweeper wakes up on the writes of outbox marks (local/work-signal.ts `watchSweptWrites`, in front
 * of the DynamoDB stand-in), and runs again once they are older than its bound: every write of a mark must be
 * signalled, with a time no earlier than the mark's, or a mark a crash left would wait for the sweep's idle pace.
 */
let env: { table: DynamoTable; close(): Promise<void> };
let signals: ReturnType<typeof writtenSignals>;
beforeAll(async () => {
  env = await startTestTable();
  signals = writtenSignals(onMarksWritten);
});
afterAll(async () => {
  signals?.close();
  await env?.close();
});

const mark = (key: string, at = Date.now()): OutboxMark => {
  const eventId = eventIdFor(key, at);
  return { eventId, at, message: JSON.stringify({ v: 1, eventId, acceptedAt: at }), orderGroup: `prj_1/c:${key}` };
};

describe('the marks-written signal', () => {
  it('is sent for a new item with its mark and for a mark an update adds, no earlier than the mark', async () => {
    const key = { pk: 'MSG#marks-1', sk: 'STATUS' };
    const first = mark('a');
    const put = await signals.of(
      () => putItem(env.table, { Item: { ...key, status: 'queued', ...outboxItemAttributes(first, key.pk) } }),
      true,
    );
    expect(put).toHaveLength(1);
    expect(put[0]).toBeGreaterThanOrEqual(first.at);
    const second = mark('b');
    const u = outboxUpdate(second, key.pk);
    const update = await signals.of(
      () =>
        updateItem(env.table, {
          Key: key,
          UpdateExpression: `SET #s = :s, ${u.set} ADD ${u.add}`,
          ExpressionAttributeNames: { ...u.names, '#s': 'status' },
          ExpressionAttributeValues: { ...u.values, ':s': 'sent' },
        }),
      true,
    );
    expect(update).toHaveLength(1);
    expect(update[0]).toBeGreaterThanOrEqual(second.at);
  });

  it('is not sent for a mark cleared, nor for a write without one', async () => {
    const key = { pk: 'MSG#marks-2', sk: 'STATUS' };
    const m = mark('c');
    await signals.of(() => putItem(env.table, { Item: { ...key, ...outboxItemAttributes(m, key.pk) } }), true);
    expect(await signals.of(() => clearOutboxMark(env.table, key, m.eventId), false)).toEqual([]);
    const plain = { pk: 'PRJ#marks', sk: 'META', name: 'OUTBOX, a project' };
    expect(await signals.of(() => putItem(env.table, { Item: plain }), false)).toEqual([]);
  });
});
