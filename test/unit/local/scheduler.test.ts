import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ScheduledWorkerDefinition } from '#shared/contract/workers.ts';
import { foundNothing, IDLE_MAX_SECONDS, SETTLED_IDLE_MAX_SECONDS, startSchedule } from '#local/scheduler.ts';

const worker: ScheduledWorkerDefinition = {
  fn: 'due-sweeper',
  everyMinutesOnAws: 1,
  everySecondsLocally: 2,
  timeoutSeconds: 60,
  memoryMb: 512,
};

/**
 * A schedule whose handler answers `results()` and notes the second of each run; `work()` signals work coming in (now,
 * or at the time given).
 */
function scheduled(results: () => unknown, settleMs?: number) {
  const runs: number[] = [];
  let listener: ((sentAt: number) => void) | undefined;
  const schedule = startSchedule(
    worker,
    async () => {
      runs.push(Date.now() / 1000);
      return results();
    },
    () => {},
    {
      onWork: (l) => {
        listener = l;
        return { close: () => (listener = undefined) };
      },
      ...(settleMs === undefined ? {} : { settleMs }),
    },
  );
  return { runs, schedule, work: (at = Date.now()) => listener?.(at) };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the local schedule of a sweeper', () => {
  it('runs every everySecondsLocally while its runs do something', async () => {
    const { runs, schedule } = scheduled(() => ({ enqueued: 1 }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toEqual([2, 4, 6, 8, 10]);
    await schedule.stop();
  });

  it('waits twice as long after each run that found nothing, up to IDLE_MAX_SECONDS', async () => {
    const { runs, schedule } = scheduled(() => ({ enqueued: 0 }));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(IDLE_MAX_SECONDS).toBe(30);
    expect(runs).toEqual([2, 6, 14, 30, 60, 90, 120]);
    await schedule.stop();
  });

  it('is back to its pace when work comes in, and when a run does something', async () => {
    let found = 0;
    const { runs, schedule, work } = scheduled(() => ({ published: found }));
    await vi.advanceTimersByTimeAsync(31_000);
    expect(runs).toEqual([2, 6, 14, 30]);
    // Waiting for 60 s: work at 31 s brings the next run to 33 s at the latest; then it waits twice as long again.
    work();
    await vi.advanceTimersByTimeAsync(6_000);
    expect(runs).toEqual([2, 6, 14, 30, 33, 37]);
    // A run that did something: every 2 s again.
    found = 3;
    await vi.advanceTimersByTimeAsync(8_000);
    expect(runs).toEqual([2, 6, 14, 30, 33, 37, 45]);
    found = 0;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(runs.at(-1)).toBe(47);
    // Found nothing at 47: the next run would be at 51; work at 47 brings it to 49.
    work();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(runs.at(-1)).toBe(49);
    // Work while the next run (53) is nearer than 2 s changes nothing.
    await vi.advanceTimersByTimeAsync(2_500);
    work();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs.at(-1)).toBe(49);
    await vi.advanceTimersByTimeAsync(500);
    expect(runs.at(-1)).toBe(53);
    await schedule.stop();
  });

  it('also runs once signalled work (and the start, for work left before it) is settleMs old', async () => {
    // The event sweep publishes a mark only once older than its bound: idle runs back off meanwhile, and one run
    // comes just past the bound, whatever the back-off says.
    const { runs, schedule, work } = scheduled(() => ({ published: 0 }), 10_000);
    await vi.advanceTimersByTimeAsync(31_000);
    // 2, 6, then 12 (the start's work settled at 10.001 s: the next multiple of the pace) instead of 14; from there,
    // twice as long each time.
    expect(runs).toEqual([2, 6, 12, 28]);
    // A mark written at 31 s: back to the pace (33, 37), and a run at 42 s instead of 45.
    work();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(runs).toEqual([2, 6, 12, 28, 33, 37, 42, 58]);
    await schedule.stop();
  });

  it('runs a pace apart while signals keep coming, not once for each second of them, and once past the last one', async () => {
    // A drain writes marks every second: each second's signal is owed a run once settled, and every one of those is
    // paid by a paced run at most a pace (2 s) after it.
    const { runs, schedule, work } = scheduled(() => ({ published: 0 }), 10_000);
    for (let second = 0; second < 40; second++) {
      work();
      await vi.advanceTimersByTimeAsync(1_000);
    }
    const gaps = runs.slice(1).map((at, i) => at - runs[i]!);
    expect(Math.min(...gaps)).toBe(2);
    expect(runs.length).toBe(20);
    // Then the runs owed to the stretch's last signals, a pace apart, the last one at 50 s (the last signal, at 39 s,
    // settled at 49.001 s), and the back-off from there.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(runs.filter((at) => at > 40)).toEqual([42, 44, 46, 48, 50]);
    await schedule.stop();
  });

  it('with settleMs, waits up to SETTLED_IDLE_MAX_SECONDS between idle runs: its work wakes it', async () => {
    const { runs, schedule } = scheduled(() => ({ refunded: 0 }), 1_000);
    await vi.advanceTimersByTimeAsync(700_000);
    expect(SETTLED_IDLE_MAX_SECONDS).toBe(300);
    // 2 (the start's work settled at 1.001 s: the next whole second), then 2 s doubled each time, up to 300 s.
    expect(runs).toEqual([2, 6, 14, 30, 62, 126, 254, 510]);
    await schedule.stop();
  });

  it('keeps its pace after a run that failed, and stops', async () => {
    const { runs, schedule } = scheduled(() => {
      throw new Error('the queue refused');
    });
    await vi.advanceTimersByTimeAsync(6_000);
    expect(runs).toEqual([2, 4, 6]);
    await schedule.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toEqual([2, 4, 6]);
  });
});

describe('a run that found nothing', () => {
  it('counts things and counts none', () => {
    expect(foundNothing({ enqueued: 0 })).toBe(true);
    expect(foundNothing({ published: 0, refunded: 0 })).toBe(true);
    expect(foundNothing({ enqueued: 2 })).toBe(false);
    expect(foundNothing({})).toBe(false);
    expect(foundNothing(undefined)).toBe(false);
    expect(foundNothing({ status: 'ok' })).toBe(false);
  });
});
