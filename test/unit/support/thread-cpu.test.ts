import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpu } from '#test/support/thread-cpu.ts';

/** Spins the calling thread for `ms` of its own CPU. */
function spin(ms: number): number {
  const start = process.threadCpuUsage();
  let n = 0;
  for (;;) {
    n++;
    const used = process.threadCpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return n;
  }
}

describe('threadCpu: a budget on synchronous work counts that work, not what the rest of the process does', () => {
  it("counts the work's CPU, and gives its result", () => {
    const { cpuMs, result } = threadCpu(() => spin(60));
    expect(result).toBeGreaterThan(0);
    expect(cpuMs).toBeGreaterThanOrEqual(60);
    expect(cpuMs).toBeLessThan(60 + 40);
  });

  it("leaves out another thread's CPU spent meanwhile, which the process's CPU counts", async () => {
    // Another thread of the process spends 200 ms of its own CPU inside the measured work: the work starts it through
    // shared memory and waits (spinning) until it says it is done.
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const other = new Worker(
      `const { workerData: flags } = require('node:worker_threads');
       Atomics.wait(flags, 0, 0);
       const start = process.threadCpuUsage();
       for (;;) { const u = process.threadCpuUsage(start); if (u.user + u.system >= 200000) break; }
       Atomics.store(flags, 1, 1);`,
      { eval: true, workerData: flags },
    );
    await new Promise<void>((resolve) => other.once('online', () => resolve()));
    const before = process.cpuUsage();
    const { cpuMs } = threadCpu(() => {
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
      while (Atomics.load(flags, 1) === 0) spin(1);
    });
    const used = process.cpuUsage(before);
    await other.terminate();
    const processMs = (used.user + used.system) / 1000;
    expect(processMs - cpuMs).toBeGreaterThanOrEqual(190);
  });
});
