/**
 * CPU milliseconds the calling thread spent on `work`, and its result. For budgets on synchronous work: the thread's
 * own time, not the process's, so what else the test's worker process runs meanwhile (the thread pool, the collector's
 * helper threads, another file's service threads winding down: seen at 1.2 s under a full suite) is not counted, while
 * a parser or sampler that works too long still is. CPU rather than wall time, so a loaded machine cannot fail it.
 */
export function threadCpu<T>(work: () => T): { cpuMs: number; result: T } {
  const start = process.threadCpuUsage();
  const result = work();
  const used = process.threadCpuUsage(start);
  return { cpuMs: (used.user + used.system) / 1000, result };
}
