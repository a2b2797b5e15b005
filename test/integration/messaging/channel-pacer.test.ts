import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoChannelPacer } from '#shared/messaging/adapters/dynamo-channel-pacer.ts';
import { startTestTable } from '#test/support/dynamo.ts';

let db: Awaited<ReturnType<typeof startTestTable>>;
beforeAll(async () => {
  db = await startTestTable();
});
afterAll(() => db?.close());

describe('a channel pace in DynamoDB', () => {
  it('hands out consecutive instants to concurrent reservations, never one twice, and none beyond the horizon', async () => {
    const pacer = new DynamoChannelPacer(db.table);
    const now = Date.now();
    const starts = await Promise.all(Array.from({ length: 8 }, () => pacer.reserve('ch_pace', 3, 100, now, 2_000)));
    const numbers = starts.filter((s): s is number => typeof s === 'number').sort((a, b) => a - b);
    // 2 s of a 100 ms spacing hold 20 instants: groups of 3 start up to 1.9 s ahead, the rest are told later.
    expect(numbers.length).toBeGreaterThanOrEqual(6);
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]! - numbers[i - 1]!).toBe(300);
    expect(numbers[0]).toBe(now);
    for (const s of starts) if (typeof s !== 'number') expect(s.later).toBeGreaterThan(now + 2_000);
  });
});
