import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/contract/keys.ts';
import { putItem, readItem } from '#shared/kernel/aws/dynamo-table.ts';
import { DynamoDeliveryStore } from '#shared/webhooks/adapters/dynamo-delivery-store.ts';
import { DynamoFailedDeliveries } from '#shared/webhooks/adapters/dynamo-failed-deliveries.ts';
import { DynamoWebhookAttemptStats } from '#shared/webhooks/adapters/dynamo-webhook-attempt-stats.ts';
import { migrateWebhookLayout } from '#shared/webhooks/adapters/legacy-webhook-layout.ts';
import { newEventId } from '#shared/events/index.ts';
import { deliveryIdFor } from '#shared/webhooks/model.ts';
import { startTestTable } from '#test/support/dynamo.ts';

/** A webhook's items as the previous layout wrote them (one partition per webhook), moved to the spread one. */
let env: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

const T0 = Date.parse('2026-11-20T10:00:00Z');
const attempt = (n: number, statusCode: number) => ({ at: new Date(T0 + n).toISOString(), statusCode, durationMs: 5 });

/** A record at the previous layout's key, as the previous version wrote it. */
async function oldRecord(n: number, status: 'succeeded' | 'failed') {
  const eventId = newEventId(T0 + n * 1000);
  const deliveryId = deliveryIdFor(eventId, 'int_old');
  await putItem(env.table, {
    Item: {
      pk: 'DLV#prj_old#int_old',
      sk: deliveryId,
      deliveryId,
      projectId: 'prj_old',
      integrationId: 'int_old',
      eventId,
      eventType: 'message.sent',
      status,
      attempts: [attempt(n, status === 'failed' ? 500 : 200)],
      body: `{"id":"${eventId}"}`,
      createdAt: T0 + n,
      updatedAt: T0 + n,
      expiresAt: Math.floor(T0 / 1000) + 30 * 86400,
      ...(status === 'failed' ? { gsi1pk: 'DLVFAILED#prj_old#int_old', gsi1sk: deliveryId } : {}),
    },
  });
  return { eventId, deliveryId };
}

describe('moving a webhook to the spread layout', () => {
  it('keeps its log, its failures for recover, a record a later attempt already rewrote, and its chart; twice is once', async () => {
    const records = [];
    for (let n = 0; n < 40; n++) records.push(await oldRecord(n, n % 4 === 0 ? 'failed' : 'succeeded'));
    // A record whose delivery was attempted again after the deploy: its new key holds the later attempt only.
    const store = new DynamoDeliveryStore(env.table);
    const again = records[0]!;
    await store.recordAttempt({
      projectId: 'prj_old',
      integrationId: 'int_old',
      deliveryId: again.deliveryId,
      eventId: again.eventId,
      eventType: 'message.sent',
      attempt: attempt(99, 200),
      status: 'succeeded',
      manual: true,
    });
    await putItem(env.table, {
      Item: { pk: 'WHSTATS#prj_old#int_old', sk: '2026-11-20T10', succeeded: 30, failed: 10, l2: 40, expiresAt: 1 },
    });
    await new DynamoWebhookAttemptStats(env.table, () => 0).add([
      { projectId: 'prj_old', integrationId: 'int_old', at: T0 + 60_000, succeeded: true, durationMs: 5 },
    ]);

    expect(await migrateWebhookLayout(env.table)).toEqual({ deliveries: 40, hours: 1 });
    expect(await migrateWebhookLayout(env.table)).toEqual({ deliveries: 0, hours: 0 });

    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('prj_old', 'int_old', { limit: 15, ...(cursor ? { cursor } : {}) });
      listed.push(...page.items.map((d) => d.deliveryId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toEqual(records.map((r) => r.deliveryId).reverse());
    expect(await store.get('prj_old', 'int_old', again.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: [attempt(0, 500), attempt(99, 200)],
      body: `{"id":"${again.eventId}"}`,
    });
    const failed = await new DynamoFailedDeliveries(env.table).page('prj_old', 'int_old', { since: T0 - 1 });
    expect(failed.deliveryIds).toEqual(records.filter((_, n) => n % 4 === 0 && n !== 0).map((r) => r.deliveryId));
    expect(await readItem(env.table, { pk: 'DLV#prj_old#int_old', sk: records[1]!.deliveryId })).toBeUndefined();
    const [hour] = await new DynamoWebhookAttemptStats(env.table).hours(
      'prj_old',
      'int_old',
      '2026-11-20T10',
      '2026-11-20T10',
    );
    expect(hour).toMatchObject({ hour: '2026-11-20T10', succeeded: 31, failed: 10 });
    expect(await readItem(env.table, { pk: 'WHSTATS#prj_old#int_old', sk: '2026-11-20T10' })).toBeUndefined();
    expect(await readItem(env.table, keys.webhookHour('prj_old', 'int_old', '2026-11-20T10', 0))).toBeDefined();
  });
});
