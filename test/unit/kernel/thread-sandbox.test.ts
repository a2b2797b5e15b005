import { afterAll, describe, expect, it } from 'vitest';
import { SandboxLimitError, SandboxTaskError, ThreadSandbox } from '#shared/kernel/adapters/thread-sandbox.ts';

/**
 * The parsing sandbox (shared/kernel/adapters/thread-sandbox.ts): work runs on a worker thread, so this thread keeps
 * answering; a call past its deadline or its heap is stopped and says which; a task's error crosses with its fields.
 */
const bootstrap = new URL('../../../local/thread-bootstrap.mjs', import.meta.url);
const entry = new URL('../../fixtures/sandbox/tasks.ts', import.meta.url);
const sandboxes: ThreadSandbox[] = [];
const sandbox = (options: { memoryMb?: number; maxWorkers?: number } = {}) => {
  const made = new ThreadSandbox({
    bootstrap,
    entry,
    memoryMb: options.memoryMb ?? 128,
    maxWorkers: options.maxWorkers ?? 2,
  });
  sandboxes.push(made);
  return made;
};
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

describe('thread sandbox', () => {
  it('runs a task and answers its result', async () => {
    expect(await sandbox().run('echo', { a: [1, 'two'] }, { deadlineMs: 10_000 })).toEqual({ a: [1, 'two'] });
  });

  it('stops a task past its deadline, while this thread keeps running', async () => {
    const box = sandbox();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const error = await box.run('spin', {}, { deadlineMs: 500 }).catch((e: unknown) => e);
    clearInterval(ticker);
    expect(error).toBeInstanceOf(SandboxLimitError);
    expect((error as SandboxLimitError).kind).toBe('time');
    expect(performance.now() - started).toBeLessThan(5_000);
    // The loop ran on another thread: this one ticked all along (about 50 times in 500 ms).
    expect(ticks).toBeGreaterThan(10);
    // The pool carries on with a fresh worker.
    expect(await box.run('echo', 'after', { deadlineMs: 10_000 })).toBe('after');
  });

  it('stops a task past its heap and says so', async () => {
    const error = await sandbox({ memoryMb: 64 })
      .run('hog', {}, { deadlineMs: 60_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxLimitError);
    expect((error as SandboxLimitError).kind).toBe('memory');
  }, 60_000);

  it("carries a task's error across with its name, message and fields", async () => {
    const error = await sandbox()
      .run('fail', { limit: 'stream' }, { deadlineMs: 10_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxTaskError);
    expect(error).toMatchObject({
      remoteName: 'TypedError',
      message: 'it went wrong',
      fields: { code: 'E_TYPED', limit: 'stream' },
    });
  });

  it('answers what a task asks back', async () => {
    const answer = async (name: string, input: unknown) => ({ value: name === 'double' ? (input as number) * 2 : 0 });
    expect(await sandbox().run('ask', { n: 20 }, { deadlineMs: 10_000, answer })).toBe(41);
  });

  it('rejects with the signal’s reason when aborted', async () => {
    const controller = new AbortController();
    const running = sandbox().run('sleep', { ms: 10_000 }, { deadlineMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gone')), 200);
    await expect(running).rejects.toThrow('caller gone');
  });

  it('lends each worker to one caller at a time; others wait their turn', async () => {
    const box = sandbox({ maxWorkers: 1 });
    const first = await box.lease();
    let secondStarted = false;
    const second = box.run('echo', 'second', { deadlineMs: 10_000 }).then((v) => {
      secondStarted = true;
      return v;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondStarted).toBe(false);
    expect(await first.call('echo', 'first', { deadlineMs: 10_000 })).toBe('first');
    first.release();
    expect(await second).toBe('second');
  });
});
