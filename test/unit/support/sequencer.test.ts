import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { SlowFirstSequencer, slowFiles } from '#test/support/sequencer.ts';

const root = process.cwd();

/** The sequencer's order for files of a fresh clone (no timings of Vitest's own). */
async function order(files: [project: string, file: string][]): Promise<string[]> {
  const sequencer = Object.create(SlowFirstSequencer.prototype) as SlowFirstSequencer;
  Object.assign(sequencer, { ctx: { config: { root }, cache: { getTestSpecificationResult: () => undefined } } });
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

  it('names only files that exist', () => {
    expect(Object.keys(slowFiles).filter((key) => !existsSync(key.slice(key.indexOf(':') + 1)))).toEqual([]);
  });
});
