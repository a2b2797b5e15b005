import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hourLabel,
  LATENCY_BUCKET_EDGES_MS,
  LATENCY_BUCKETS,
  latencyBucket,
  medianFromBuckets,
} from '#shared/webhooks/attempt-stats.ts';

describe('webhook attempt latency histogram', () => {
  it('puts a latency in the first bucket whose upper edge is at or above it; slower than 15 s in the last', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(25)).toBe(0);
    expect(latencyBucket(26)).toBe(1);
    expect(latencyBucket(1000)).toBe(5);
    expect(latencyBucket(15_000)).toBe(LATENCY_BUCKET_EDGES_MS.length - 1);
    expect(latencyBucket(15_001)).toBe(LATENCY_BUCKETS - 1);
  });

  it('reads the median as the upper edge of the bucket holding the middle attempt', () => {
    expect(medianFromBuckets(Array(LATENCY_BUCKETS).fill(0))).toBeNull();
    // 3 fast (≤ 25 ms), 1 at ≤ 1 s: the 2nd of 4 is fast.
    const counts = Array(LATENCY_BUCKETS).fill(0);
    counts[0] = 3;
    counts[5] = 1;
    expect(medianFromBuckets(counts)).toBe(25);
    counts[5] = 4; // 3 fast, 4 slow: the 4th of 7 is slow
    expect(medianFromBuckets(counts)).toBe(1000);
  });

  it('the bucket median bounds the exact median: the true median is at most the edge and above the previous edge', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 14_000 }), { minLength: 1, maxLength: 60 }), (latencies) => {
        const counts = Array(LATENCY_BUCKETS).fill(0);
        for (const l of latencies) counts[latencyBucket(l)]++;
        const sorted = [...latencies].sort((a, b) => a - b);
        const lowerMiddle = sorted[Math.ceil(sorted.length / 2) - 1]!;
        const edge = medianFromBuckets(counts)!;
        expect(lowerMiddle).toBeLessThanOrEqual(edge);
        const index = LATENCY_BUCKET_EDGES_MS.indexOf(edge as (typeof LATENCY_BUCKET_EDGES_MS)[number]);
        if (index > 0) expect(lowerMiddle).toBeGreaterThan(LATENCY_BUCKET_EDGES_MS[index - 1]!);
      }),
    );
  });

  it('labels hours in UTC, sortable as text', () => {
    expect(hourLabel(Date.parse('2026-11-24T06:59:59.999Z'))).toBe('2026-11-24T06');
    expect(hourLabel(Date.parse('2026-11-24T07:00:00Z')) > hourLabel(Date.parse('2026-11-24T06:00:00Z'))).toBe(true);
  });
});
