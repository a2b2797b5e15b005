import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DynamoDeliveryStore } from '#shared/webhooks/adapters/dynamo-delivery-store.ts';
import { DynamoWebhookHealthStore } from '#shared/webhooks/adapters/dynamo-webhook-health-store.ts';
import { DynamoEventBodies } from '#shared/webhooks/adapters/dynamo-event-bodies.ts';
import { marksOf, newEventId } from '#shared/events/index.ts';
import { deliveryIdFor } from '#shared/webhooks/model.ts';
import type { AttemptWrite } from '#shared/webhooks/ports.ts';
import { startTestTable } from '#test/support/dynamo.ts';
import { readItem } from '#shared/kernel/aws/dynamo-table.ts';
import { keys, WEBHOOK_PARTITIONS, workIndex } from '#shared/contract/keys.ts';
import { GroupedPuts } from '#shared/kernel/aws/grouped-puts.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
let store: DynamoDeliveryStore;
beforeAll(async () => {
  env = await startTestTable();
  store = new DynamoDeliveryStore(env.table);
});
afterAll(async () => env?.close());

let seq = 0;
function write(integrationId: string, overrides: Partial<AttemptWrite> = {}): AttemptWrite {
  const eventId = newEventId(Date.parse('2026-11-21T10:00:00Z') + seq++ * 1000);
  return {
    projectId: 'prj_1',
    integrationId,
    deliveryId: deliveryIdFor(eventId, integrationId),
    eventId,
    eventType: 'message.sent',
    attempt: { at: '2026-11-21T10:00:00.000Z', statusCode: 500, durationMs: 12, error: 'HTTP 500' },
    status: 'pending',
    nextAttemptAt: 1_800_000_000_000,
    body: '{"id":"x"}',
    manual: false,
    ...overrides,
  };
}

describe('DynamoDeliveryStore against dynalite', () => {
  it('creates the record with the first attempt and appends the next ones', async () => {
    const first = write('int_a');
    expect(await store.recordAttempt(first)).toBe(true);
    expect(
      await store.recordAttempt({
        ...first,
        attempt: { at: '2026-11-21T10:00:05.000Z', statusCode: 200, durationMs: 8 },
        status: 'succeeded',
        nextAttemptAt: undefined,
        body: undefined,
      }),
    ).toBe(true);
    const record = await store.get('prj_1', 'int_a', first.deliveryId);
    expect(record).toEqual({
      deliveryId: first.deliveryId,
      projectId: 'prj_1',
      integrationId: 'int_a',
      eventId: first.eventId,
      eventType: 'message.sent',
      status: 'succeeded',
      attempts: [first.attempt, { at: '2026-11-21T10:00:05.000Z', statusCode: 200, durationMs: 8 }],
      body: '{"id":"x"}',
    });
  });

  it('never lets a late automatic attempt overwrite a succeeded delivery; a manual one may', async () => {
    const w = write('int_b', { status: 'succeeded', nextAttemptAt: undefined });
    await store.recordAttempt(w);
    expect(await store.recordAttempt({ ...w, status: 'pending', nextAttemptAt: 1 })).toBe(false);
    expect((await store.get('prj_1', 'int_b', w.deliveryId))!.status).toBe('succeeded');
    expect(await store.recordAttempt({ ...w, status: 'failed', manual: true })).toBe(true);
    expect((await store.get('prj_1', 'int_b', w.deliveryId))!.attempts).toHaveLength(2);
  });

  it('lists newest first, filters by status, pages with a cursor, without bodies', async () => {
    const writes = [
      write('int_c'),
      write('int_c', { status: 'failed', nextAttemptAt: undefined }),
      write('int_c'),
      write('int_c', { status: 'failed', nextAttemptAt: undefined }),
    ];
    for (const w of writes) await store.recordAttempt(w);
    const all = await store.list('prj_1', 'int_c', { limit: 10 });
    expect(all.items.map((d) => d.eventId)).toEqual(writes.map((w) => w.eventId).reverse());
    expect(all.items[0]!.body).toBeUndefined();
    expect(all.nextCursor).toBeUndefined();
    const failed = await store.list('prj_1', 'int_c', { limit: 10, status: 'failed' });
    expect(failed.items.map((d) => d.eventId)).toEqual([writes[3]!.eventId, writes[1]!.eventId]);
    const page1 = await store.list('prj_1', 'int_c', { limit: 3 });
    expect(page1.items).toHaveLength(3);
    const page2 = await store.list('prj_1', 'int_c', { limit: 3, cursor: page1.nextCursor });
    expect(page2.items.map((d) => d.eventId)).toEqual([writes[0]!.eventId]);
    expect((await store.list('prj_1', 'int_other', { limit: 10 })).items).toEqual([]);
  });

  it("spreads one webhook's records over its partitions and still lists them as one log, newest first", async () => {
    const writes = Array.from({ length: 180 }, (_, n) =>
      write('int_wide', n % 5 === 0 ? { status: 'failed', nextAttemptAt: undefined } : {}),
    );
    for (let i = 0; i < writes.length; i += 30)
      await Promise.all(writes.slice(i, i + 30).map((w) => store.recordAttempt(w)));
    const partitions = new Set(writes.map((w) => keys.delivery('prj_1', 'int_wide', w.deliveryId).pk));
    expect(partitions.size).toBe(WEBHOOK_PARTITIONS);
    const newestFirst = writes.map((w) => w.deliveryId).reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('prj_1', 'int_wide', { limit: 50, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((d) => d.deliveryId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(newestFirst);
    const failed = await store.list('prj_1', 'int_wide', { limit: 100, status: 'failed' });
    expect(failed.items.map((d) => d.deliveryId)).toEqual(
      writes
        .filter((w) => w.status === 'failed')
        .map((w) => w.deliveryId)
        .reverse(),
    );
    // A failed record's index entry is in the work index, in its record's shard, keys only.
    const one = writes[0]!;
    expect(await readItem(env.table, keys.delivery('prj_1', 'int_wide', one.deliveryId))).toMatchObject(
      workIndex.failedDeliveriesEntry('prj_1', 'int_wide', one.deliveryId),
    );
    // A cursor of another webhook's log is refused, not read elsewhere.
    const other = await store.list('prj_1', 'int_c', { limit: 1 });
    await expect(store.list('prj_1', 'int_wide', { limit: 1, cursor: other.nextCursor! })).rejects.toThrow(/cursor/);
  });

  it('marks a delivery pending for a queued manual retry, unless its attempt already ran', async () => {
    const w = write('int_d', { status: 'failed', nextAttemptAt: undefined });
    await store.recordAttempt(w);
    // The retry's attempt ran before the mark (one more attempt than seen): the outcome it recorded stays.
    expect(await store.markRetrying('prj_1', 'int_d', w.deliveryId, 0)).toBe(false);
    expect(await store.markRetrying('prj_1', 'int_d', w.deliveryId, 1)).toBe(true);
    expect(await store.get('prj_1', 'int_d', w.deliveryId)).toMatchObject({
      status: 'pending',
      body: '{"id":"x"}',
      attempts: [w.attempt],
    });
    expect(await store.markRetrying('prj_1', 'int_d', 'dlv_missing', 0)).toBe(false);
  });
});

describe('DynamoEventBodies against dynalite', () => {
  it("stores an event's body once, apart from its records, and reads many back in one call", async () => {
    const bodies = new DynamoEventBodies(env.table);
    const events = Array.from({ length: 30 }, (_, n) => newEventId(Date.parse('2026-11-21T11:00:00Z') + n));
    await Promise.all(events.map((id, n) => bodies.put(id, `{"id":"${id}","n":${n}}`)));
    const found = await bodies.get([...events, 'evt_absent']);
    expect(found.size).toBe(30);
    expect(found.get(events[7]!)).toBe(`{"id":"${events[7]}","n":7}`);
    expect(found.has('evt_absent')).toBe(false);
    expect(await readItem(env.table, keys.eventBody(events[0]!))).toMatchObject({
      body: `{"id":"${events[0]}","n":0}`,
      expiresAt: expect.any(Number),
    });
  });
});

describe('DynamoWebhookHealthStore against dynalite', () => {
  it('counts failures in a row from the first one until a success ends the streak', async () => {
    const health = new DynamoWebhookHealthStore(env.table);
    expect(await health.fold('prj_1', 'int_h', { failuresAfter: 2, firstFailureAt: 1000 }, 1500)).toEqual({
      consecutiveFailures: 2,
      failingSince: 1000,
      noticed: false,
    });
    expect(await health.fold('prj_1', 'int_h', { failuresAfter: 3, firstFailureAt: 5000 }, 5500)).toEqual({
      consecutiveFailures: 5,
      failingSince: 1000,
      noticed: false,
    });
    // A batch that succeeded at 6000 and failed once after: the next streak has begun.
    expect(
      await health.fold('prj_1', 'int_h', { lastSuccessAt: 6000, failuresAfter: 1, firstFailureAt: 6200 }, 6300),
    ).toEqual({ consecutiveFailures: 1, failingSince: 6200, noticed: false });
    expect(await health.fold('prj_1', 'int_h', { lastSuccessAt: 6500, failuresAfter: 0 }, 6500)).toEqual({
      consecutiveFailures: 0,
      failingSince: null,
      noticed: false,
    });
  });

  it('notices a streak once, with its outbox mark, and a new streak again', async () => {
    const health = new DynamoWebhookHealthStore(env.table);
    const mark = (eventId: string) => ({
      eventId,
      at: 1,
      message: JSON.stringify({ eventId }),
      orderGroup: 'prj_1/project',
    });
    await health.fold('prj_1', 'int_n', { failuresAfter: 2, firstFailureAt: 1000 }, 1000);
    expect(await health.markFailingNotice('prj_1', 'int_n', 3, mark('evt_a'), 1100)).toBe(false);
    await health.fold('prj_1', 'int_n', { failuresAfter: 1, firstFailureAt: 1200 }, 1200);
    const [first, second] = await Promise.all([
      health.markFailingNotice('prj_1', 'int_n', 3, mark('evt_a'), 1300),
      health.markFailingNotice('prj_1', 'int_n', 3, mark('evt_b'), 1300),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect((await health.fold('prj_1', 'int_n', { failuresAfter: 1, firstFailureAt: 1400 }, 1400)).noticed).toBe(true);
    const item = await readItem(env.table, keys.webhookHealth('prj_1', 'int_n'));
    expect(marksOf(item).map((m) => m.eventId)).toEqual([first ? 'evt_a' : 'evt_b']);
    await health.clearMark('prj_1', 'int_n', first ? 'evt_a' : 'evt_b');
    expect(marksOf(await readItem(env.table, keys.webhookHealth('prj_1', 'int_n')))).toEqual([]);
    // A success ends the streak; the next one is noticed again.
    await health.fold('prj_1', 'int_n', { lastSuccessAt: 1500, failuresAfter: 3, firstFailureAt: 1600 }, 1700);
    expect(await health.markFailingNotice('prj_1', 'int_n', 3, mark('evt_c'), 1800)).toBe(true);
  });
});

describe('a first attempt that succeeded', () => {
  /**
   * The operations the store's client sends, by name, from now on; `overlap` is the most calls naming `watched` in
   * their input that were under way at once.
   */
  function recordOperations(watched = '\u0000'): string[] & { overlap: number } {
    const ops = Object.assign([] as string[], { overlap: 0 });
    let open = 0;
    env.table.client.middlewareStack.add(
      (next, context) => async (args) => {
        ops.push(context.commandName ?? '');
        const watching = JSON.stringify(args.input).includes(watched);
        if (watching) ops.overlap = Math.max(ops.overlap, ++open);
        try {
          return await next(args);
        } finally {
          if (watching) open--;
        }
      },
      { step: 'initialize', name: 'record-operations' },
    );
    onTestFinished(() => void env.table.client.middlewareStack.remove('record-operations'));
    return ops;
  }

  it('creates the same record as an update would, and ten ending together share three calls', async () => {
    const succeeded = (integrationId: string, first: boolean) =>
      write(integrationId, {
        attempt: { at: '2026-11-21T10:00:00.000Z', statusCode: 200, durationMs: 9 },
        status: 'succeeded',
        nextAttemptAt: undefined,
        orderKey: 'ch_1:+5511999990000',
        ...(first ? { first: true } : {}),
      });
    const updated = succeeded('int_update', false);
    await store.recordAttempt(updated);

    const ops = recordOperations();
    const puts = Array.from({ length: 10 }, () => succeeded('int_put', true));
    expect(await Promise.all(puts.map((w) => store.recordAttempt(w)))).toEqual(Array(10).fill(true));
    // Two calls at most under way: the first two puts leave alone, the eight that queued behind them together.
    expect([...ops]).toEqual(['BatchWriteItemCommand', 'BatchWriteItemCommand', 'BatchWriteItemCommand']);

    const same = (item: Record<string, unknown> | undefined) => {
      const { pk, sk, deliveryId, eventId, integrationId, createdAt, updatedAt, expiresAt, ...rest } = item ?? {};
      return { keys: Object.keys(item ?? {}).sort(), rest };
    };
    const byUpdate = await readItem(env.table, keys.delivery('prj_1', 'int_update', updated.deliveryId));
    for (const put of puts) {
      const byPut = await readItem(env.table, keys.delivery('prj_1', 'int_put', put.deliveryId));
      expect(same(byPut)).toEqual(same(byUpdate));
      expect(await store.get('prj_1', 'int_put', put.deliveryId)).toMatchObject({
        status: 'succeeded',
        attempts: [put.attempt],
        body: '{"id":"x"}',
        orderKey: 'ch_1:+5511999990000',
      });
    }
    // A late automatic attempt of the same delivery still leaves it succeeded.
    expect(await store.recordAttempt({ ...puts[0]!, status: 'pending', first: undefined, body: undefined })).toBe(
      false,
    );
  });

  it('puts of one delivery never share a call nor run side by side: the later one lands last', async () => {
    const ops = recordOperations('int_twice');
    const first = write('int_twice', {
      attempt: { at: '2026-11-21T10:00:00.000Z', statusCode: 200, durationMs: 5 },
      status: 'succeeded',
      nextAttemptAt: undefined,
      first: true,
    });
    const again = { ...first, attempt: { at: '2026-11-21T10:00:01.000Z', statusCode: 204, durationMs: 6 } };
    const blockers = [1, 2].map(() => store.recordAttempt({ ...write('int_other'), status: 'succeeded', first: true }));
    await Promise.all([...blockers, store.recordAttempt(first), store.recordAttempt(again)]);
    expect(ops.filter((op) => op === 'BatchWriteItemCommand')).toHaveLength(4);
    expect(ops.overlap).toBe(1);
    expect((await store.get('prj_1', 'int_twice', first.deliveryId))?.attempts).toEqual([again.attempt]);
  });
});

describe('puts grouped in one call', () => {
  it('one item DynamoDB refuses fails alone: the others of its call are written one by one', async () => {
    const puts = new GroupedPuts(env.table);
    const item = (sk: string, text = 'ok') => ({ pk: 'TEST#grouped', sk, text });
    const blockers = [puts.put(item('a')), puts.put(item('b'))];
    const queued = [puts.put(item('c')), puts.put(item('too-large', 'x'.repeat(410 * 1024))), puts.put(item('d'))];
    const results = await Promise.allSettled([...blockers, ...queued]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/size/i);
    for (const sk of ['a', 'b', 'c', 'd']) expect(await readItem(env.table, { pk: 'TEST#grouped', sk })).toBeDefined();
    expect(await readItem(env.table, { pk: 'TEST#grouped', sk: 'too-large' })).toBeUndefined();
  });
});
