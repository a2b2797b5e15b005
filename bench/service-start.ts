/**
 * What one start of the local service costs in CPU, with the runner's threads (as `npm start` runs it) and on one
 * event loop (`LOCAL_THREADS=0`): the process's user + system time from launch to its banner, then over 5 s of idling.
 * Issue 25: the test files that start services of their own (the crash points start 20) run the one-loop runner.
 *
 * Run: npx tsx bench/service-start.ts [--rounds 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnService } from '#test/support/process.ts';
import { machine, median, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);

const results: Record<'threads' | 'one loop', { readyMs: number[]; cpuMs: number[]; idleCpuMs: number[] }> = {
  threads: { readyMs: [], cpuMs: [], idleCpuMs: [] },
  'one loop': { readyMs: [], cpuMs: [], idleCpuMs: [] },
};
for (let round = 0; round < rounds; round++) {
  // Alternated, so a change in the machine's load falls on both.
  for (const mode of ['threads', 'one loop'] as const) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-start-'));
    const started = performance.now();
    const svc = await spawnService({
      DATA_DIR: dataDir,
      LOCAL_THREADS: mode === 'threads' ? '1' : '0',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    const readyMs = performance.now() - started;
    const cpuAtReady = processCpuMs(svc.child.pid!);
    await new Promise((r) => setTimeout(r, 5000));
    const idle = processCpuMs(svc.child.pid!) - cpuAtReady;
    svc.child.kill('SIGKILL');
    await new Promise((r) => svc.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    results[mode].readyMs.push(readyMs);
    results[mode].cpuMs.push(cpuAtReady);
    results[mode].idleCpuMs.push(idle);
  }
}
console.log(machine());
for (const [mode, r] of Object.entries(results)) {
  console.log(
    `${mode.padEnd(8)}  start: ${median(r.readyMs).toFixed(0)} ms wall, ${median(r.cpuMs).toFixed(0)} ms CPU` +
      `  · idle: ${median(r.idleCpuMs).toFixed(0)} ms CPU per 5 s  (medians of ${rounds}; CPU per round: ${r.cpuMs.join(', ')})`,
  );
}
