import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onDueWritten } from '#local/work-signal.ts';
import { keys } from '#shared/contract/keys.ts';
import { DynamoDeferredStore } from '#shared/messaging/adapters/dynamo-deferred-store.ts';
import type { DeferredMessage } from '#shared/messaging/volume/deferred.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { writtenSignals } from '#test/support/written-signals.ts';

/**
 * The local due sweeper wakes up on the writes of due entries alone (local/work-signal.ts `watchSweptWrites`, in
 * front of the DynamoDB stand-in): every write of one must be signalled, or a send left unqueued would wait for the
 * sweep's idle pace. Writes that give it no work are not signalled.
 */
let table: Awaited<ReturnType<typeof startTestTable>>;
let store: DynamoDeferredStore;
let signals: ReturnType<typeof writtenSignals>;
beforeAll(async () => {
  table = await startTestTable();
  store = new DynamoDeferredStore(table.table);
  signals = writtenSignals(onDueWritten);
});
afterAll(async () => {
  signals?.close();
  await table?.close();
});

/** How many signals `write` gave (see writtenSignals). */
const signalsOf = async (write: () => Promise<unknown>, expectOne: boolean) =>
  (await signals.of(write, expectOne)).length;

const message = (i: number, extra: Partial<DeferredMessage> = {}): DeferredMessage => ({
  messageId: `msg_${i}`,
  projectId: 'prj_a',
  channelId: 'ch_a',
  integrationId: 'int_a',
  channelType: 'email',
  companyId: 1,
  channelAddress: 'a@example.com',
  provider: 'sandbox',
  status: 'scheduled',
  conversationId: 'conv_a',
  contact: 'b@example.com',
  to: 'b@example.com',
  body: { text: 'hello' },
  createdAt: new Date().toISOString(),
  ...extra,
});

describe('the due-written signal', () => {
  it('is sent for a scheduled send, a batch, a reschedule and the removal of due entries', async () => {
    const sendAt = new Date(Date.now() + 10 * 60_000).toISOString();
    expect(await signalsOf(() => store.create([message(1, { sendAt })]), true)).toBeGreaterThanOrEqual(1);
    // A batch's items (queued: one shared entry), each body large enough that the request comes in several chunks.
    const big = { text: 'x'.repeat(30_000) };
    const batch = Array.from({ length: 20 }, (_, i) => message(100 + i, { status: 'queued', body: big }));
    let entries: Awaited<ReturnType<DynamoDeferredStore['create']>> = [];
    expect(
      await signalsOf(async () => {
        entries = await store.create(batch);
      }, true),
    ).toBeGreaterThanOrEqual(1);
    const later = new Date(Date.now() + 20 * 60_000).toISOString();
    expect(await signalsOf(() => store.reschedule('msg_1', later, new Date().toISOString()), true)).toBe(1);
    expect(await signalsOf(() => store.removeDue(entries), true)).toBe(1);
  });

  it('is not sent for writes without due entries (the sweep cursor, a project)', async () => {
    expect(await signalsOf(() => store.setSweepCursor(Date.now()), false)).toBe(0);
    const project = { ...keys.project('prj_a'), name: 'DUE# in a name is not a due entry' };
    expect(
      await signalsOf(
        () => table.table.client.send(new PutCommand({ TableName: table.table.tableName, Item: project })),
        false,
      ),
    ).toBe(0);
  });
});
