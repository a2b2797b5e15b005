// Where a test run left the cores idle: a timeline of the run from the CPU log (test/support/cpu-log.ts: each file's
// and each group service's start and end) and, if given, the machine's busy cores sampled from /proc/stat.
//
// Run:
//   (while true; do echo "$(date +%s.%N) $(head -1 /proc/stat)"; sleep 1; done) > /tmp/stat.log &
//   TEST_CPU_LOG=/tmp/cpu.jsonl npm test; kill %1
//   node bench/suite-timeline.mjs /tmp/cpu.jsonl [/tmp/stat.log] [window seconds, default 20]
//
// Prints, per window: the cores busy (machine-wide: other work on the machine counts too), the files running (a
// worker slot each), the group services up, and the files that ran through the whole window (the waits that hold a
// slot); then the idle core-seconds by window and the files that ended last.
import { readFileSync } from 'node:fs';

const [logFile, statFile, windowArg] = process.argv.slice(2);
const window = Number(windowArg ?? 20);
const entries = readFileSync(logFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .filter((e) => typeof e.start === 'number' && typeof e.end === 'number');
if (!entries.length) throw new Error(`${logFile}: no entry with start and end (a log from before they were logged?)`);
const files = entries.filter((e) => !e.file.endsWith("group's service"));
const services = entries.filter((e) => e.file.endsWith("group's service"));
const t0 = Math.min(...entries.map((e) => e.start));
const t1 = Math.max(...entries.map((e) => e.end));

/** Busy cores between two samples of /proc/stat's first line (user nice system idle iowait irq softirq steal). */
function busyCores() {
  if (!statFile) return [];
  const rows = readFileSync(statFile, 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((r) => r.length > 6 && r[1] === 'cpu')
    .map((r) => ({ t: Number(r[0]), ticks: r.slice(2, 10).map(Number) }));
  const out = [];
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const total = b.ticks.reduce((n, x) => n + x, 0) - a.ticks.reduce((n, x) => n + x, 0);
    const idle = b.ticks[3] + b.ticks[4] - (a.ticks[3] + a.ticks[4]);
    if (total > 0) out.push({ from: a.t, to: b.t, busy: cores * (1 - idle / total) });
  }
  return out;
}
const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm).length;
const samples = busyCores();
const short = (f) => f.replace(/^test\//, '').replace(/\.test\.ts$/, '');

console.log(
  `${files.length} files, ${services.length} group services, ${(t1 - t0).toFixed(1)} s from the first start to the last end`,
);
console.log('  window s   busy  files  services  files running through the window');
let idleSum = 0;
for (let w = t0; w < t1; w += window) {
  const end = Math.min(w + window, t1);
  const overlap = (e) => Math.max(0, Math.min(e.end, end) - Math.max(e.start, w));
  // Files running, as a time-weighted mean over the window (a file a worker slot).
  const running = files.reduce((n, e) => n + overlap(e), 0) / (end - w);
  const up = services.filter((e) => overlap(e) > 0).map((e) => e.file.split(' ')[0]);
  const through = files.filter((e) => e.start <= w && e.end >= end).map((e) => short(e.file));
  const inWindow = samples.filter((s) => s.to > w && s.from < end);
  const busy = inWindow.length ? inWindow.reduce((n, s) => n + s.busy, 0) / inWindow.length : Number.NaN;
  if (inWindow.length) idleSum += Math.max(0, cores - busy) * (end - w);
  console.log(
    `${String(Math.round(w - t0)).padStart(5)}-${String(Math.round(end - t0)).padEnd(5)}` +
      `${Number.isNaN(busy) ? '    -' : busy.toFixed(2).padStart(6)}` +
      `${running.toFixed(1).padStart(7)}  ${up.join(',').padEnd(9)} ${through.join(' ')}`,
  );
}
if (samples.length)
  console.log(`idle core-seconds (${cores} cores) from the first start to the last end: ${idleSum.toFixed(0)}`);
console.log('services: started → ready → stopped (s from the first start)');
for (const s of services)
  console.log(
    `  ${s.file.padEnd(26)} ${(s.start - t0).toFixed(1)} → ${s.ready ? (s.ready - t0).toFixed(1) : '-'} → ${(s.end - t0).toFixed(1)}`,
  );
console.log('the last files to end (start → end, s from the first start):');
for (const e of [...files].sort((a, b) => b.end - a.end).slice(0, 8))
  console.log(`  ${(e.start - t0).toFixed(1)} → ${(e.end - t0).toFixed(1)}  ${e.file}`);
