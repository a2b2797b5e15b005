import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { threadEntry } from '#local/threads.ts';
import { runnerBundleKey } from '#test/support/runner-bundle.ts';

const local = (file: string) => new URL(`../../../local/${file}`, import.meta.url);

describe("the tests' services run the runner's threads from its bundle", () => {
  it('each runner thread runs its own module from the bundle named in LOCAL_RUNNER_BUNDLE', () => {
    for (const name of ['http-thread', 'queues-thread', 'workers-thread'])
      expect(threadEntry(local(`${name}.ts`), '/b')).toBe(pathToFileURL(`/b/${name}.js`).href);
  });

  it('without a bundle, or for any other thread (a sandbox, a function bundle), the module runs as given', () => {
    expect(threadEntry(local('http-thread.ts'), '')).toBe(local('http-thread.ts').href);
    const sandbox = new URL('../../../functions/_wiring/untrusted-tasks.ts', import.meta.url);
    expect(threadEntry(sandbox, '/b')).toBe(sandbox.href);
    expect(threadEntry(local('bundles/bundle-thread.mjs'), '/b')).toBe(local('bundles/bundle-thread.mjs').href);
  });
});

describe("the runner bundle's name: a hash of what it is built from, so a stale bundle never runs", () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('changes with any source file, an added one, the lock file and the host files, and only then', () => {
    root = mkdtempSync(join(tmpdir(), 'runner-key-'));
    for (const dir of ['local', 'shared/kernel', 'functions/send']) mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, 'local/main.ts'), 'export {};\n');
    writeFileSync(join(root, 'shared/kernel/config.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'functions/send/handler.ts'), 'export const handler = () => 1;\n');
    writeFileSync(join(root, 'package-lock.json'), '{}\n');
    expect(runnerBundleKey(root)).toBe(runnerBundleKey(root));
    mkdirSync(join(root, 'test/support'), { recursive: true });
    // Each edit, in order, and whether the name must change with it. The groups' host runs from the bundle too: it
    // and the IAM check it loads are part of it; a test support file the host never loads is not.
    const edits: [file: string, text: string, changes: boolean][] = [
      ['shared/kernel/config.ts', 'export const a = 2;\n', true],
      ['functions/send/limits.ts', 'export const b = 1;\n', true],
      ['package-lock.json', '{"lockfileVersion":3}\n', true],
      ['test/support/service-host.ts', 'export {};\n', true],
      ['test/support/iam-policy.ts', 'export const c = 1;\n', true],
      ['test/support/eventually.ts', 'export const d = 1;\n', false],
    ];
    const names = new Set([runnerBundleKey(root)]);
    for (const [file, text, changes] of edits) {
      const before = runnerBundleKey(root);
      writeFileSync(join(root, file), text);
      expect(runnerBundleKey(root) !== before, file).toBe(changes);
      names.add(runnerBundleKey(root));
    }
    // Never a name seen before: each change made a new one.
    expect(names.size).toBe(1 + edits.filter(([, , changes]) => changes).length);
  });
});
