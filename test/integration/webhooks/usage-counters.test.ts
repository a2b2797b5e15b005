import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { DynamoWebhookAttemptStats } from '#shared/webhooks/adapters/dynamo-webhook-attempt-stats.ts';
import { newId } from '#shared/kernel/ids.ts';
import { makeWebhookHealthReport } from '#shared/webhooks/health-report.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

describe('DynamoWebhookAttemptStats against dynalite', () => {
  it('adds concurrent folds per hour exactly, and the report gives 24 hours with the median per hour', async () => {
    const stats = new DynamoWebhookAttemptStats(env.table);
    const projectId = newId('prj');
    const integrationId = newId('int');
    const now = Date.parse('2026-11-24T06:30:00Z');
    const hourAgo = now - 3_600_000;
    const attempt = (at: number, succeeded: boolean, durationMs: number, id = integrationId) => ({
      projectId,
      integrationId: id,
      at,
      succeeded,
      durationMs,
    });
    // 20 attempts this hour (15 succeeded ≤ 25 ms, 5 failed at 900 ms), 3 failed an hour ago at 3 s, added by
    // concurrent batches of mixed webhooks and hours (each batch one update per webhook and hour).
    const attempts = [
      ...Array.from({ length: 15 }, () => attempt(now, true, 20)),
      ...Array.from({ length: 5 }, () => attempt(now, false, 900)),
      ...Array.from({ length: 3 }, () => attempt(hourAgo, false, 3000)),
      // Another webhook and a day-old hour are not in the report.
      attempt(now, true, 5, newId('int')),
      attempt(now - 24 * 3_600_000, true, 5),
    ];
    await Promise.all(Array.from({ length: 5 }, (_, b) => stats.add(attempts.filter((_, i) => i % 5 === b))));
    const report = makeWebhookHealthReport({
      projects: { get: async () => undefined },
      webhooks: { getWebhook: async () => ({}) as never, get: async () => undefined },
      stats,
      now: () => now,
    });
    const day = await report.lastDay(projectId, integrationId);
    expect(day.hours).toHaveLength(24);
    expect(day.hours.at(-1)).toEqual({
      hour: '2026-11-24T06:00:00.000Z',
      succeeded: 15,
      failed: 5,
      medianLatencyMs: 25,
    });
    expect(day.hours.at(-2)).toEqual({
      hour: '2026-11-24T05:00:00.000Z',
      succeeded: 0,
      failed: 3,
      medianLatencyMs: 5000,
    });
    expect(day.hours[0]).toEqual({ hour: '2026-11-23T07:00:00.000Z', succeeded: 0, failed: 0, medianLatencyMs: null });
    expect({ succeeded: day.succeeded, failed: day.failed }).toEqual({ succeeded: 15, failed: 8 });
  });
});

describe('DynamoCreditLedger day counters', () => {
  it('count charges on their UTC day and refunds on theirs, in the same write as the balance', async () => {
    const ledger = new DynamoCreditLedger(env.table);
    const account = { projectId: newId('prj'), monthlyAllowance: 10 };
    const firstDay = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1, 12));
    const today = new Date();
    const first = await ledger.charge(account, newId('chg'), firstDay);
    await ledger.charge(account, newId('chg'), firstDay);
    const last = await ledger.charge(account, newId('chg'), today);
    if (!first.charged || !last.charged) throw new Error('not charged');
    expect(await ledger.refund(last.receipt)).toBe(true);
    expect(await ledger.refund(last.receipt)).toBe(false); // a second refund counts nothing
    const usage = await ledger.usage(account, today);
    expect(usage.days).toHaveLength(today.getUTCDate());
    const byDay = new Map(usage.days.map((d) => [d.day, d]));
    if (today.getUTCDate() === 1) {
      expect(byDay.get(1)).toEqual({ day: 1, charged: 3, refunded: 1 });
    } else {
      expect(byDay.get(1)).toEqual({ day: 1, charged: 2, refunded: 0 });
      expect(byDay.get(today.getUTCDate())).toEqual({ day: today.getUTCDate(), charged: 1, refunded: 1 });
    }
    expect(usage).toMatchObject({ allowance: 10, granted: 0, available: 8 });
    expect(usage.days.reduce((sum, d) => sum + d.charged - d.refunded, 0)).toBe(10 - usage.available);
  });
});
