import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { SlowFirstSequencer, slowFiles, spreadWaiting, waitingFiles } from '#test/support/sequencer.ts';

const root = process.cwd();

/** The sequencer's order for files of a fresh clone (no timings of Vitest's own). */
async function order(files: [project: string, file: string][]): Promise<string[]> {
  const sequencer = Object.create(SlowFirstSequencer.prototype) as SlowFirstSequencer;
  Object.assign(sequencer, {
    ctx: { config: { root, maxWorkers: 4 }, cache: { getTestSpecificationResult: () => undefined } },
  });
  const specs = files.map(([name, file]) => ({ project: { name }, moduleId: `${root}/${file}` }));
  const sorted = await sequencer.sort(specs as unknown as TestSpecification[]);
  return sorted.map((s) => s.moduleId.slice(root.length + 1));
}

describe('the test order on a fresh clone', () => {
  it('starts the longest files first, the capacity test (short, but minutes of waiting) before all', async () => {
    expect(
      await order([
        ['unit', 'test/unit/credits/month.test.ts'],
        ['unit', 'test/infra/stack.test.ts'],
        ['e2e', 'test/e2e/volume.test.ts'],
        ['own', 'test/e2e/capacity.test.ts'],
      ]),
    ).toEqual([
      'test/e2e/capacity.test.ts',
      'test/e2e/volume.test.ts',
      'test/infra/stack.test.ts',
      'test/unit/credits/month.test.ts',
    ]);
  });

  it('places an own file missing from the table before unit files missing from it, whatever their sizes', async () => {
    const sorted = await order([
      ['unit', 'test/unit/credits/month.test.ts'],
      ['unit', 'test/unit/model-providers/tool-calls.test.ts'],
      ['own', 'test/e2e/single-loop.test.ts'],
    ]);
    expect(sorted[0]).toBe('test/e2e/single-loop.test.ts');
  });

  it('runs no more than two of the files that mostly wait at once: the third starts when one of them ends', async () => {
    expect(
      await order([
        ['unit', 'test/unit/credits/month.test.ts'],
        ['own', 'test/e2e/overload.test.ts'],
        ['e2e', 'test/e2e/webhooks-pacing-recover.test.ts'],
        ['unit', 'test/infra/stack.test.ts'],
        ['e2e', 'test/e2e/volume.test.ts'],
        ['own', 'test/e2e/capacity.test.ts'],
        ['own', 'test/e2e/crash-points-webhooks.test.ts'],
        ['own', 'test/e2e/console.test.ts'],
      ]),
    ).toEqual([
      // 237 and 113 s: two waiting files, then the longest that do not wait.
      'test/e2e/capacity.test.ts',
      'test/e2e/volume.test.ts',
      'test/infra/stack.test.ts',
      'test/e2e/crash-points-webhooks.test.ts',
      // At 60 s crash-points-webhooks ends, but two still wait: the longest file that does not takes its slot.
      'test/e2e/console.test.ts',
      // At 94 s the stack test ends: only month.test.ts does not wait, and it goes before them.
      'test/unit/credits/month.test.ts',
      // volume.test.ts ends at 113 s.
      'test/e2e/overload.test.ts',
      // overload.test.ts ends at 171 s.
      'test/e2e/webhooks-pacing-recover.test.ts',
    ]);
  });

  it('spreads by the estimates it is given, whatever the files are', () => {
    const ms: Record<string, number> = { w1: 100, w2: 90, w3: 80, a: 50, b: 10, c: 5 };
    const order = spreadWaiting(
      ['w1', 'w2', 'w3', 'a', 'b', 'c'],
      (f) => ms[f]!,
      (f) => f.startsWith('w'),
      3,
    );
    // w1, w2 and a start; a ends at 50 and b takes its slot; b ends at 60, c at 65; w2 ends at 90, then w3.
    expect(order).toEqual(['w1', 'w2', 'a', 'b', 'c', 'w3']);
  });

  it('names only files that exist', () => {
    expect(Object.keys(slowFiles).filter((key) => !existsSync(key.slice(key.indexOf(':') + 1)))).toEqual([]);
    expect([...waitingFiles].filter((key) => !existsSync(key.slice(key.indexOf(':') + 1)))).toEqual([]);
  });
});
