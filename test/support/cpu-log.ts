import { appendFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { processCpu } from './process-cpu.ts';

/**
 * With `TEST_CPU_LOG=<file>`, each test file appends one JSON line: its wall time and the CPU its worker process
 * spent on it (all its threads: an in-process service's too), and its exited child processes' (services it spawned,
 * Chromium, the CDK CLI), in seconds; and when it started and ended (Unix seconds), for a timeline of the run
 * (`node bench/suite-timeline.mjs`). The group services' own CPU is logged by ./global-service.ts when they stop.
 * `npm test` is CPU-bound on two cores, so this is where its time goes: `node bench/test-cpu.mjs <file>` sums it up.
 *
 * A setup file runs again for every test file (isolated or not), so its top level marks the file's start, imports
 * included; its `afterAll` runs after the file's own.
 */
const LOG = process.env.TEST_CPU_LOG;

if (LOG) {
  const startedAt = performance.now();
  const startedAtUnix = Date.now();
  const start = processCpu();
  // biome-ignore lint/correctness/noEmptyPattern: Vitest parses a hook's first argument as a fixture pattern.
  afterAll(({}, suite) => {
    const end = processCpu();
    const file = 'filepath' in suite ? String(suite.filepath) : suite.name;
    const line = {
      file: file.slice(file.indexOf('test/')),
      wall: Math.round(performance.now() - startedAt) / 1000,
      cpu: Math.round((end.own - start.own) * 100) / 100,
      children: Math.round((end.children - start.children) * 100) / 100,
      start: startedAtUnix / 1000,
      end: Date.now() / 1000,
    };
    appendFileSync(LOG, `${JSON.stringify(line)}\n`);
  });
}
