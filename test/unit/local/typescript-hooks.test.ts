import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * How `npm start` and the runner's threads load the project's TypeScript (local/typescript-hooks.mjs), in a process of
 * their own with `--enable-source-maps`: a file whose types are only erasable comes without a source map (its positions
 * are the source's), a file with a parameter property with one, and a stack names the source's line and column in both.
 */
const fixtures = join(import.meta.dirname, '../../fixtures/typescript-hooks');
const erasable = pathToFileURL(join(fixtures, 'erasable.ts')).href;
const parameterProperty = pathToFileURL(join(fixtures, 'parameter-property.ts')).href;

const SCRIPT = `
import { findSourceMap } from 'node:module';
const erasable = await import(${JSON.stringify(erasable)});
const parameterProperty = await import(${JSON.stringify(parameterProperty)});
const stack = (f) => { try { f(); } catch (error) { return error.stack.split('\\n')[1].trim(); } };
console.log(JSON.stringify({
  maps: [Boolean(findSourceMap(${JSON.stringify(erasable)})), Boolean(findSourceMap(${JSON.stringify(parameterProperty)}))],
  stacks: [stack(() => erasable.fail({ name: 'a' })), stack(() => new parameterProperty.Failing('b').fail())],
}));`;

describe('the local runner loading TypeScript', () => {
  it('gives a source map only to a transformed file, and stacks at the source positions either way', () => {
    const out = spawnSync(
      process.execPath,
      ['--import', './local/typescript-hooks.mjs', '--enable-source-maps', '--input-type=module', '-e', SCRIPT],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(out.status, out.stderr).toBe(0);
    const { maps, stacks } = JSON.parse(out.stdout) as { maps: boolean[]; stacks: string[] };
    expect(maps).toEqual([false, true]);
    expect(stacks[0]).toMatch(/typescript-hooks\/erasable\.ts:9:9\)?$/);
    expect(stacks[1]).toMatch(/typescript-hooks\/parameter-property\.ts:7:11\)?$/);
  });
});
