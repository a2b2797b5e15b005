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
    const keys = [runnerBundleKey(root), runnerBundleKey(root)];
    writeFileSync(join(root, 'shared/kernel/config.ts'), 'export const a = 2;\n');
    keys.push(runnerBundleKey(root));
    writeFileSync(join(root, 'functions/send/limits.ts'), 'export const b = 1;\n');
    keys.push(runnerBundleKey(root));
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    keys.push(runnerBundleKey(root));
    // The groups' host runs from the bundle too: it and the IAM check it loads are part of it.
    mkdirSync(join(root, 'test/support'), { recursive: true });
    writeFileSync(join(root, 'test/support/service-host.ts'), 'export {};\n');
    keys.push(runnerBundleKey(root));
    writeFileSync(join(root, 'test/support/iam-policy.ts'), 'export const c = 1;\n');
    keys.push(runnerBundleKey(root));
    // A test support file the host never loads is no part of it.
    writeFileSync(join(root, 'test/support/eventually.ts'), 'export const d = 1;\n');
    keys.push(runnerBundleKey(root));
    expect(keys[0]).toBe(keys[1]);
    expect(keys.at(-1)).toBe(keys.at(-2));
    expect(new Set(keys).size).toBe(6);
  });
});
