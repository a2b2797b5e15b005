import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Failpoints armed in a running process (`FAILPOINTS_FILE`, shared/kernel/failpoints.ts), as the crash-point files
 * arm the service they restarted: a child process reaches a named step each time the test tells it to, and either
 * passes it or dies there with SIGKILL.
 */
const dir = mkdtempSync(join(tmpdir(), 'switchboard-failpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failpoints = pathToFileURL(join(import.meta.dirname, '../../../shared/kernel/failpoints.ts')).href;
const STEPS = `
import { createInterface } from 'node:readline';
import { failpoint } from '${failpoints}';
for await (const step of createInterface({ input: process.stdin })) {
  failpoint(step);
  process.stdout.write('passed ' + step + '\\n');
}`;

/** A process that runs `failpoint(<line>)` for each line it is sent; `step` resolves with `passed` or `killed`. */
function stepper(env: Record<string, string>) {
  const script = join(dir, `steps-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(script, STEPS);
  const child = spawn(process.execPath, ['--import', './local/typescript-hooks.mjs', script], {
    env: { ...process.env, SWITCHBOARD_RUNTIME: 'local', ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<'killed'>((resolve) => child.once('exit', () => resolve('killed')));
  return {
    step(name: string): Promise<'passed' | 'killed'> {
      const passed = new Promise<'passed'>((resolve) => child.stdout.once('data', () => resolve('passed')));
      child.stdin.write(`${name}\n`);
      return Promise.race([passed, exited]);
    },
    signal: () => exited.then(() => child.signalCode),
  };
}

describe('failpoints armed through FAILPOINTS_FILE', () => {
  it('a process started unarmed dies at the step once the file names it, not before', async () => {
    const file = join(dir, 'armed-later');
    const p = stepper({ FAILPOINTS_FILE: file });
    expect(await p.step('after-charge')).toBe('passed');
    writeFileSync(file, 'after-refund');
    expect(await p.step('after-charge')).toBe('passed');
    writeFileSync(file, 'after-charge');
    expect(await p.step('after-charge')).toBe('killed');
    expect(await p.signal()).toBe('SIGKILL');
  });

  it('counts `name:n` again from zero when the list changes', async () => {
    const file = join(dir, 'recounted');
    writeFileSync(file, 'after-charge:2');
    const p = stepper({ FAILPOINTS_FILE: file });
    expect(await p.step('after-charge')).toBe('passed');
    writeFileSync(file, 'after-publish,after-charge:2');
    expect(await p.step('after-charge')).toBe('passed');
    expect(await p.step('after-charge')).toBe('killed');
  });

  it('is ignored outside the local runner', async () => {
    const file = join(dir, 'aws');
    writeFileSync(file, 'after-charge');
    const p = stepper({ FAILPOINTS_FILE: file, SWITCHBOARD_RUNTIME: 'aws' });
    expect(await p.step('after-charge')).toBe('passed');
  });
});
