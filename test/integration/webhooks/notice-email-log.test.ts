import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '#shared/kernel/ids.ts';
import { DynamoNoticeEmailLog } from '#shared/webhooks/adapters/dynamo-notice-email-log.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let env: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  env = await startTestTable();
});
afterAll(async () => env?.close());

describe('DynamoNoticeEmailLog against dynalite', () => {
  it('one job holds a notice email at a time; a sent one is never claimed again; a lapsed claim is taken over', async () => {
    const log = new DynamoNoticeEmailLog(env.table);
    const [projectId, eventId] = [newId('prj'), newId('evt')];
    const t0 = Date.parse('2026-12-01T10:00:00Z');
    // Two copies of the job at once: one wins.
    const claims = await Promise.all(['m1', 'm2'].map((m) => log.claim(projectId, eventId, m, t0, 60_000)));
    expect([...claims].sort()).toEqual(['another', 'mine']);
    const holder = claims[0] === 'mine' ? 'm1' : 'm2';
    // The holder's own message, received again, holds it still; a refusal releases it for anyone.
    expect(await log.claim(projectId, eventId, holder, t0 + 1_000, 60_000)).toBe('mine');
    await log.release(projectId, eventId, 'not-the-holder');
    expect(await log.claim(projectId, eventId, 'm3', t0 + 2_000, 60_000)).toBe('another');
    await log.release(projectId, eventId, holder);
    expect(await log.claim(projectId, eventId, 'm3', t0 + 3_000, 60_000)).toBe('mine');
    // m3 died while sending: after its lease another copy takes over, then sends.
    expect(await log.claim(projectId, eventId, 'm4', t0 + 3_000 + 60_001, 60_000)).toBe('mine');
    await log.markSent(projectId, eventId, 'm4', t0 + 70_000);
    for (const m of ['m1', 'm3', 'm4'])
      expect(await log.claim(projectId, eventId, m, t0 + 200_000, 60_000)).toBe('sent');
  });
});
