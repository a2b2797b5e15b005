import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gcraParams, gcraStep } from '#shared/ratelimit/gcra.ts';

const p = gcraParams(60);

/** Runs arrivals (ms, ascending) through the pure GCRA and returns the admitted times. */
function admittedTimes(arrivals: number[]): number[] {
  let tat: number | undefined;
  const admitted: number[] = [];
  for (const t of arrivals) {
    const step = gcraStep(tat, t, p);
    tat = step.tat;
    if (step.decision.allowed) admitted.push(t);
  }
  return admitted;
}

describe('GCRA model', () => {
  it('lets a burst of 60 through, then one per second', () => {
    const burst = admittedTimes(Array.from({ length: 200 }, () => 0));
    expect(burst).toHaveLength(60);
    const later = admittedTimes([
      ...Array.from({ length: 200 }, () => 0),
      ...Array.from({ length: 10 }, (_, i) => 1000 * (i + 1)),
    ]);
    expect(later).toHaveLength(70);
  });

  it('over any N whole minutes admits at most 60 × (N + 1)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 * 60_000 }), { maxLength: 1500 }),
        fc.integer({ min: 1, max: 3 }),
        (raw, n) => {
          const admitted = admittedTimes([...raw].sort((a, b) => a - b));
          for (let i = 0; i < admitted.length; i++) {
            const end = admitted[i]! + n * 60_000;
            let count = 0;
            for (let j = i; j < admitted.length && admitted[j]! < end; j++) count++;
            expect(count).toBeLessThanOrEqual(60 * (n + 1));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reports remaining, reset and retry-after honestly', () => {
    const first = gcraStep(undefined, 0, p);
    expect(first.decision).toMatchObject({ allowed: true, limit: 60, remaining: 59, resetSeconds: 1 });
    let tat = first.tat;
    for (let i = 0; i < 59; i++) tat = gcraStep(tat, 0, p).tat;
    const refused = gcraStep(tat, 0, p).decision;
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 60 });
  });
});
