import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The workers load the test files with Node's own `import` (vitest.config.ts, docs/testing.md): what Vite's module
 * runner would give and Node does not must not be relied on, or a test would silently test something else.
 */
describe('test files load natively', () => {
  it('runs this file through Node, with the project’s TypeScript hook and V8’s compile cache', () => {
    expect(process.execArgv).toContain('./local/typescript-hooks.mjs');
    expect(process.env.NODE_COMPILE_CACHE).toBeTruthy();
  });

  it('no test uses vi.mock, vi.doMock or import.meta.vitest, which need Vitest’s loader', () => {
    const files = (readdirSync('test', { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join('test', f))
      .filter((f) => f !== 'test/unit/support/native-import.test.ts');
    expect(files.length).toBeGreaterThan(200);
    const forbidden = ['vi.mock(', 'vi.doMock(', 'import.meta.vitest'];
    const offenders = files.filter((f) => forbidden.some((word) => readFileSync(f, 'utf8').includes(word)));
    expect(offenders).toEqual([]);
  });
});
