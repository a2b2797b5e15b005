import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_DELAYS_SECONDS,
  parseRetrySchedule,
  retryDelaySeconds,
} from '#shared/webhooks/retry-schedule.ts';

describe('retry schedule', () => {
  it('defaults to the contract: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 8 attempts', () => {
    const schedule = parseRetrySchedule(undefined);
    expect(schedule.delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(schedule.maxAttempts).toBe(8);
    expect(retryDelaySeconds(schedule, 1, () => 0)).toBe(5);
    expect(retryDelaySeconds(schedule, 7, () => 0)).toBe(36000);
    expect(retryDelaySeconds(schedule, 8, () => 0)).toBeUndefined();
  });

  it('reads WEBHOOK_RETRY_SCHEDULE: n delays, n + 1 attempts', () => {
    const schedule = parseRetrySchedule(' 0.2, 0.2 ,1');
    expect(schedule).toEqual({ delays: [0.2, 0.2, 1], maxAttempts: 4 });
    expect(parseRetrySchedule('0').maxAttempts).toBe(2);
    expect(() => parseRetrySchedule('5,-1')).toThrow();
    expect(() => parseRetrySchedule('5,abc')).toThrow();
  });

  it('never retries earlier than scheduled nor more than 20 % later, and stops after the last attempt', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        (delays, r) => {
          const schedule = parseRetrySchedule(delays.join(','));
          for (let attempt = 1; attempt <= schedule.maxAttempts; attempt++) {
            const delay = retryDelaySeconds(schedule, attempt, () => r);
            if (attempt === schedule.maxAttempts) {
              expect(delay).toBeUndefined();
            } else {
              const base = Number(String(delays[attempt - 1]));
              expect(delay).toBeGreaterThanOrEqual(base);
              expect(delay).toBeLessThanOrEqual(base * 1.2 + 1e-9);
            }
          }
        },
      ),
    );
    expect(DEFAULT_RETRY_DELAYS_SECONDS.every((d) => d * 1.2 <= 12 * 3600)).toBe(true);
  });
});
