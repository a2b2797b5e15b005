// The sequencer's table of slow files (test/support/sequencer.ts, `slowFiles`) from a run's log: every file that took
// 5 s or more, longest first, as `'<project>:<file>': <seconds>,` lines to paste into it.
//
// Run: node bench/slow-files.mjs <log of `npm test` or `.ci/run`>
import { readFileSync } from 'node:fs';

/** Terminal colour codes (ESC [ … m) in a log written to a terminal or with FORCE_COLOR. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

const log = readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8').replace(ANSI, '');
const rows = [];
for (const line of log.split('\n')) {
  const m = /^ [✓×❯] +([a-z0-9-]+) +(test\/\S+\.test\.ts) .* (\d+(?:\.\d+)?)(ms|s)$/.exec(line);
  if (!m) continue;
  const seconds = Number(m[3]) / (m[4] === 'ms' ? 1000 : 1);
  if (seconds >= 5) rows.push([`${m[1]}:${m[2]}`, Math.round(seconds)]);
}
rows.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
for (const [key, seconds] of rows) console.log(`  '${key}': ${seconds},`);
