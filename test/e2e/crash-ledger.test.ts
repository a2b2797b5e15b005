import { describe, expect, it } from 'vitest';
import { formatLedger, MAIL_KIND, runCrashLedger } from '../../bench/crash-ledger.ts';

/**
 * The crash ledger, short (bench/crash-ledger.ts runs the long one): every kind of input at once, the service killed
 * with SIGKILL twice at random moments and restarted, unacknowledged inputs sent again; every acknowledged input's
 * event reaches the webhook, no change is published under two ids, and one contact's messages reach a webhook ordered
 * by conversation in the order they were acknowledged. One sender per kind of input and kills ~3 s
 * apart: ~400 inputs acknowledged across the kills for ~30 s of CPU (two senders 4 s apart cost ~49 s for the same
 * assertions; bench/history/2026-11-test-suite-time.md).
 */
describe('crash ledger', () => {
  it('loses nothing acknowledged and gives no change two event ids across kill -9', async () => {
    const ledger = await runCrashLedger({ kills: 2, secondsBetweenKills: 3, concurrency: 1, drainSeconds: 30 });
    const all = ledger.rows.reduce((n, r) => n + r.acknowledged, 0);
    expect(all, formatLedger(ledger)).toBeGreaterThan(100);
    expect(ledger.rows.map((r) => r.kind).sort()).toHaveLength(6);
    expect(
      ledger.rows.filter((r) => r.acknowledged === 0).map((r) => r.kind),
      formatLedger(ledger),
    ).toEqual([]);
    expect(ledger.lostKeys, formatLedger(ledger)).toEqual([]);
    // The receiver always answers 200: every event arrives through the automatic attempts, none needs a hand retry.
    expect(ledger.failedDeliveries, formatLedger(ledger)).toBe(0);
    expect(
      ledger.rows.filter((r) => r.failed > 0),
      formatLedger(ledger),
    ).toEqual([]);
    expect(
      ledger.rows.filter((r) => r.twoIds > 0),
      formatLedger(ledger),
    ).toEqual([]);
    // One contact's messages reach the ordered webhooks in the order they were acknowledged (mail: from SES's
    // notification on, which is not counted here).
    expect(
      ledger.order.filter((r) => r.kind !== MAIL_KIND && (r.outOfOrder > 0 || r.missing > 0)),
      formatLedger(ledger),
    ).toEqual([]);
  }, 240_000);
});
