/**
 * What one start of the local service costs in CPU, with the runner's threads (as `npm start` runs it) and on one
 * event loop (`LOCAL_THREADS=0`): the process's user + system time from launch to its banner, then over 5 s of idling.
 * Why (bench/history/2026-11-test-suite-time.md): the test files that start services of their own (the crash points start 20) run the one-loop runner.
 *
 * With `--against <checkout>` each round also starts that checkout (a worktree of the commit before, its
 * node_modules linked) right after this one, and the ratios of the medians are printed: a same-run comparison.
 *
 * Run: npx tsx bench/service-start.ts [--rounds 5] [--against ../base]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnService } from '#test/support/process.ts';
import { machine, median, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, against: { type: 'string' } },
});
const rounds = Number(values.rounds);
const checkouts = values.against ? ['this', 'against'] : ['this'];

type Mode = 'threads' | 'one loop';
type Series = { readyMs: number[]; cpuMs: number[]; idleCpuMs: number[] };
const results: Record<string, Series> = {};
for (let round = 0; round < rounds; round++) {
  // Alternated, so a change in the machine's load falls on both.
  for (const mode of ['threads', 'one loop'] as Mode[])
    for (const checkout of checkouts) {
      const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-start-'));
      const started = performance.now();
      const svc = await spawnService(
        {
          DATA_DIR: dataDir,
          LOCAL_THREADS: mode === 'threads' ? '1' : '0',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
        },
        60_000,
        checkout === 'against' ? { cwd: values.against } : {},
      );
      const readyMs = performance.now() - started;
      const cpuAtReady = processCpuMs(svc.child.pid!);
      await new Promise((r) => setTimeout(r, 5000));
      const idle = processCpuMs(svc.child.pid!) - cpuAtReady;
      svc.child.kill('SIGKILL');
      await new Promise((r) => svc.child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
      const name = `${mode}${checkout === 'against' ? ' (against)' : ''}`;
      results[name] ??= { readyMs: [], cpuMs: [], idleCpuMs: [] };
      const series = results[name];
      series.readyMs.push(readyMs);
      series.cpuMs.push(cpuAtReady);
      series.idleCpuMs.push(idle);
    }
}
console.log(machine());
for (const [mode, r] of Object.entries(results)) {
  console.log(
    `${mode.padEnd(18)}  start: ${median(r.readyMs).toFixed(0)} ms wall, ${median(r.cpuMs).toFixed(0)} ms CPU` +
      `  · idle: ${median(r.idleCpuMs).toFixed(0)} ms CPU per 5 s  (medians of ${rounds}; CPU per round: ${r.cpuMs.join(', ')})`,
  );
}
if (values.against)
  for (const mode of ['threads', 'one loop']) {
    const [mine, theirs] = [results[mode]!, results[`${mode} (against)`]!];
    console.log(
      `${mode}: this / against = ${(median(mine.readyMs) / median(theirs.readyMs)).toFixed(3)} wall, ` +
        `${(median(mine.cpuMs) / median(theirs.cpuMs)).toFixed(3)} CPU to ready, ` +
        `${(median(mine.idleCpuMs) / Math.max(1, median(theirs.idleCpuMs))).toFixed(3)} idle CPU`,
    );
  }
