import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDeliveryStore } from '#shared/webhooks/adapters/dynamo-delivery-store.ts';
import { DynamoFailedDeliveries } from '#shared/webhooks/adapters/dynamo-failed-deliveries.ts';
import { DynamoWebhookPacer } from '#shared/webhooks/adapters/dynamo-webhook-pacer.ts';
import { keys, WEBHOOK_PARTITIONS, workIndex } from '#shared/contract/keys.ts';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newEventId } from '#shared/events/index.ts';
import { deliveryIdFor } from '#shared/webhooks/model.ts';
import { startSpacingMs } from '#shared/webhooks/pacing.ts';
import type { AttemptWrite } from '#shared/webhooks/ports.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
let store: DynamoDeliveryStore;
let failed: DynamoFailedDeliveries;
beforeAll(async () => {
  env = await startTestTable();
  store = new DynamoDeliveryStore(env.table);
  failed = new DynamoFailedDeliveries(env.table);
});
afterAll(async () => env?.close());

const T0 = Date.parse('2026-11-21T10:00:00Z');

function attemptAt(integrationId: string, eventMs: number, status: AttemptWrite['status']): AttemptWrite {
  const eventId = newEventId(eventMs);
  return {
    projectId: 'prj_r',
    integrationId,
    deliveryId: deliveryIdFor(eventId, integrationId),
    eventId,
    eventType: 'message.sent',
    attempt: { at: new Date(eventMs).toISOString(), statusCode: 500, durationMs: 3, error: 'HTTP 500' },
    status,
    body: `{"id":"${eventId}"}`,
    manual: false,
  };
}

async function allInWindow(integrationId: string, since: number, until?: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await failed.page('prj_r', integrationId, { since, ...(until ? { until } : {}) }, cursor);
    ids.push(...page.deliveryIds);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

describe('failed deliveries in the work index, against dynalite', () => {
  it('lists exactly the failed deliveries whose event time is in [since, until), oldest first', async () => {
    const writes = [0, 1_000, 2_000, 3_000, 4_000].map((ms) => attemptAt('int_w', T0 + ms, 'failed'));
    writes.push(attemptAt('int_w', T0 + 2_500, 'pending'));
    writes.push(attemptAt('int_other', T0 + 2_000, 'failed'));
    for (const w of writes) await store.recordAttempt(w);
    const ids = await allInWindow('int_w', T0 + 1_000, T0 + 4_000);
    expect(ids).toEqual([writes[1]!.deliveryId, writes[2]!.deliveryId, writes[3]!.deliveryId]);
    // A delivery that succeeds later leaves the index.
    await store.recordAttempt({ ...writes[2]!, status: 'succeeded', manual: true, body: undefined });
    expect(await allInWindow('int_w', T0)).toEqual(
      [writes[0]!, writes[1]!, writes[3]!, writes[4]!].map((w) => w.deliveryId),
    );
  });

  it('claims each failed delivery once when two recovers race; claimed ones stay listed until their attempt, a stale claim can be taken again', async () => {
    const writes = Array.from({ length: 40 }, (_, i) => attemptAt('int_race', T0 + 10_000 + i, 'failed'));
    for (const w of writes) await store.recordAttempt(w);
    const ids = await allInWindow('int_race', T0);
    expect(ids).toHaveLength(40);
    const [a, b] = await Promise.all([
      Promise.all(ids.map((id) => failed.claim('prj_r', 'int_race', id))),
      Promise.all(ids.map((id) => failed.claim('prj_r', 'int_race', id))),
    ]);
    const claimedA = a.filter(Boolean).length;
    const claimedB = b.filter(Boolean).length;
    expect(claimedA + claimedB).toBe(40);
    const record = a[0] ?? b[0]!;
    expect(record).toMatchObject({ status: 'pending', body: writes[0]!.body, attempts: [writes[0]!.attempt] });
    // Still listed (a recover that died before queueing its jobs must not lose them), but not claimable again...
    expect(await allInWindow('int_race', T0)).toHaveLength(40);
    expect((await Promise.all(ids.map((id) => failed.claim('prj_r', 'int_race', id)))).filter(Boolean)).toEqual([]);
    // ...until the claim is stale: its recover is surely gone, the next one takes the delivery.
    const later = new DynamoFailedDeliveries(env.table, () => Date.now() + 61_000);
    expect(await later.claim('prj_r', 'int_race', ids[1]!)).toMatchObject({ status: 'pending' });
    // An attempt's outcome takes a delivery out of the list; a release puts it back to failed.
    await store.recordAttempt({ ...writes[2]!, status: 'succeeded', manual: true });
    expect(await allInWindow('int_race', T0)).not.toContain(ids[2]);
    await failed.release('prj_r', 'int_race', ids[0]!);
    expect(await allInWindow('int_race', T0)).toContain(ids[0]);
    expect((await store.get('prj_r', 'int_race', ids[0]!))?.status).toBe('failed');
  });

  it('pages through more deliveries than one Query returns', async () => {
    const writes = Array.from({ length: 1_100 }, (_, i) => attemptAt('int_many', T0 + 100_000 + i, 'failed'));
    for (let i = 0; i < writes.length; i += 50)
      await Promise.all(writes.slice(i, i + 50).map((w) => store.recordAttempt(w)));
    const first = await failed.page('prj_r', 'int_many', { since: T0 });
    expect(first.deliveryIds).toHaveLength(500);
    expect(first.nextCursor).toBeDefined();
    // The webhook's failures are in 16 index partitions; recover reads them as one list, oldest first.
    expect(
      new Set(writes.map((w) => workIndex.failedDeliveriesEntry('prj_r', 'int_many', w.deliveryId).gsi3pk)).size,
    ).toBe(WEBHOOK_PARTITIONS);
    expect(await allInWindow('int_many', T0)).toEqual(writes.map((w) => w.deliveryId));
  });
});

describe('DynamoWebhookPacer against dynalite', () => {
  it('hands concurrent callers distinct starts at least the spacing apart', async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    const spacing = startSpacingMs(5);
    const now = Date.now();
    const starts = await Promise.all(Array.from({ length: 30 }, () => pacer.reserve('prj_p', 'int_p', spacing, now)));
    const sorted = [...starts].sort((x, y) => x - y);
    expect(sorted[0]).toBe(now);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeCloseTo(spacing, 6);
    // Any one-second window holds at most 5 of them.
    for (const s of sorted) expect(sorted.filter((t) => t >= s && t < s + 1000).length).toBeLessThanOrEqual(5);
  });

  it('starts again from now once the webhook has been idle', async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    const t = Date.now();
    expect(await pacer.reserve('prj_p', 'int_idle', 100, t)).toBe(t);
    expect(await pacer.reserve('prj_p', 'int_idle', 100, t)).toBe(t + 100);
    expect(await pacer.reserve('prj_p', 'int_idle', 100, t + 5_000)).toBe(t + 5_000);
  });

  it('keeps each lane of a high limit on its own item, with its own schedule', async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    const t = Date.now();
    expect(await pacer.reserve('prj_p', 'int_lanes', 100, t, 0)).toBe(t);
    expect(await pacer.reserve('prj_p', 'int_lanes', 100, t, 3)).toBe(t);
    expect(await pacer.reserve('prj_p', 'int_lanes', 100, t, 3)).toBe(t + 100);
    expect(await pacer.admit('prj_p', 'int_lanes', 100, t, 0)).toBe(true);
    expect(await pacer.admit('prj_p', 'int_lanes', 100, t, 3)).toBe(true);
    expect(await pacer.admit('prj_p', 'int_lanes', 100, t, 3)).toBe(false);
    const lane3 = await env.table.client.send(
      new GetCommand({ TableName: env.table.tableName, Key: keys.webhookPace('prj_p', 'int_lanes', 3) }),
    );
    expect(lane3.Item).toMatchObject({ pk: 'PACE#prj_p#int_lanes#03', next: t + 200 });
  });

  it('admits one start per spacing, however many workers ask at once', async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    const t = Date.now();
    const first = await Promise.all(Array.from({ length: 10 }, () => pacer.admit('prj_p', 'int_adm', 200, t)));
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await pacer.admit('prj_p', 'int_adm', 200, t + 150)).toBe(false);
    const later = await Promise.all(Array.from({ length: 10 }, () => pacer.admit('prj_p', 'int_adm', 200, t + 200)));
    expect(later.filter(Boolean)).toHaveLength(1);
  });

  it("gives a lane's last admitted start (what a refused admission waits from), none before the first", async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    const t = Date.now();
    expect(await pacer.lastAdmitted('prj_p', 'int_last')).toBeUndefined();
    await pacer.reserve('prj_p', 'int_last', 200, t);
    expect(await pacer.lastAdmitted('prj_p', 'int_last')).toBeUndefined();
    expect(await pacer.admit('prj_p', 'int_last', 200, t + 10)).toBe(true);
    expect(await pacer.admit('prj_p', 'int_last', 200, t + 20)).toBe(false);
    expect(await pacer.lastAdmitted('prj_p', 'int_last')).toBe(t + 10);
    expect(await pacer.admit('prj_p', 'int_last', 200, t + 30, 2)).toBe(true);
    expect(await pacer.lastAdmitted('prj_p', 'int_last', 2)).toBe(t + 30);
    expect(await pacer.lastAdmitted('prj_p', 'int_last')).toBe(t + 10);
  });

  it('reads the limit stored on the webhook, null when there is none', async () => {
    const pacer = new DynamoWebhookPacer(env.table);
    await env.table.client.send(
      new PutCommand({
        TableName: env.table.tableName,
        Item: { ...keys.integration('prj_p', 'int_lim'), product: 'webhook', integration: { rateLimitPerSecond: 7 } },
      }),
    );
    await env.table.client.send(
      new PutCommand({
        TableName: env.table.tableName,
        Item: {
          ...keys.integration('prj_p', 'int_free'),
          product: 'webhook',
          integration: { rateLimitPerSecond: null },
        },
      }),
    );
    expect(await pacer.limitOf('prj_p', 'int_lim')).toBe(7);
    expect(await pacer.limitOf('prj_p', 'int_free')).toBeNull();
    expect(await pacer.limitOf('prj_p', 'int_absent')).toBeNull();
  });
});
