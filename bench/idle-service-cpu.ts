/**
 * What an idle local service costs: the CPU (user + system) of a service started as `npm start` runs it, over
 * `--seconds` of doing nothing, once its start-up has settled (`--settle` seconds). A test group's service idles
 * between its files for most of `npm test`, so this is the floor of its CPU (bench/history/2026-12-suite-cpu.md).
 *
 * With `--against <checkout>` each round also idles that checkout's service (a copy of the commit before, its
 * node_modules linked) right after this one, and the ratio of the medians is printed: a same-run comparison.
 *
 * With `--request-every <ms>` the service is not idle but lightly busy, as a test file keeps its group's service: a
 * `GET /api/v1/ai/health` (a function behind the gateway, so the runner's "work came in" signal) that often.
 *
 * Run: npx tsx bench/idle-service-cpu.ts [--seconds 60] [--settle 10] [--rounds 2] [--threads 1|0] [--against ../base]
 *      [--request-every 500]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnService } from '#test/support/process.ts';
import { machine, median, processCpuMs } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    settle: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    threads: { type: 'string', default: '1' },
    against: { type: 'string' },
    'request-every': { type: 'string' },
  },
});
const checkouts = values.against ? ['this', 'against'] : ['this'];
const idleMs: Record<string, number[]> = {};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (let round = 0; round < Number(values.rounds); round++)
  // Alternated, so a change in the machine's load falls on both.
  for (const checkout of checkouts) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-idle-'));
    const svc = await spawnService(
      { DATA_DIR: dataDir, LOCAL_THREADS: values.threads!, POWERTOOLS_LOG_LEVEL: 'SILENT' },
      120_000,
      checkout === 'against' ? { cwd: values.against } : {},
    );
    await sleep(Number(values.settle) * 1000);
    const before = processCpuMs(svc.child.pid!);
    await (values['request-every']
      ? requestsFor(svc.baseUrl, Number(values.seconds) * 1000, Number(values['request-every']))
      : sleep(Number(values.seconds) * 1000));
    const used = processCpuMs(svc.child.pid!) - before;
    svc.child.kill('SIGKILL');
    await new Promise((r) => svc.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    idleMs[checkout] ??= [];
    idleMs[checkout].push(used);
    console.log(
      `round ${round + 1} ${checkout}: ${used.toFixed(0)} ms CPU in ${values.seconds} s (load ${loadavg()[0]!.toFixed(2)})`,
    );
  }

console.log(machine());
for (const [checkout, series] of Object.entries(idleMs))
  console.log(
    `${checkout.padEnd(8)} idle: ${median(series).toFixed(0)} ms CPU per ${values.seconds} s, threads=${values.threads}` +
      ` (median of ${series.length}: ${series.map((v) => v.toFixed(0)).join(', ')})`,
  );
if (values.against)
  console.log(`this / against = ${(median(idleMs.this!) / Math.max(1, median(idleMs.against!))).toFixed(3)} idle CPU`);

/** One health request every `everyMs` for `ms` (each answered before the next), as a test keeps a service busy. */
async function requestsFor(baseUrl: string, ms: number, everyMs: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const at = Date.now();
    const res = await fetch(`${baseUrl}/api/v1/ai/health`);
    await res.arrayBuffer();
    await sleep(Math.max(0, Math.min(until, at + everyMs) - Date.now()));
  }
}
