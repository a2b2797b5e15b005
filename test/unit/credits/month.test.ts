import { describe, expect, it } from 'vitest';
import { dayOfMonthFor, monthKey, monthLabel } from '#shared/credits/month.ts';

describe('credit months (UTC)', () => {
  it("count a refund on its UTC day, or on the month's last day when it closes an earlier month's charge", () => {
    expect(dayOfMonthFor('2026-11', new Date('2026-11-24T23:00:00Z'))).toBe(24);
    expect(dayOfMonthFor('2026-11', new Date('2026-12-01T00:05:00Z'))).toBe(30);
    expect(dayOfMonthFor('2028-02', new Date('2028-03-01T00:00:00Z'))).toBe(29);
  });

  it('keys a month for storage and labels it for the wire, both in UTC', () => {
    const lastMinute = new Date('2026-11-30T23:59:59Z');
    expect(monthKey(lastMinute)).toBe('2026-11');
    expect(monthLabel(lastMinute)).toBe('11/2026');
    expect(monthKey(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
  });
});
