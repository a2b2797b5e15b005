// Where `npm test`'s CPU goes: sums up the log that `TEST_CPU_LOG=<file> npx vitest run …` writes
// (test/support/cpu-log.ts: one line per test file, one per group service), largest first.
//
// Run: TEST_CPU_LOG=/tmp/cpu.jsonl npx vitest run [files…] && node bench/test-cpu.mjs /tmp/cpu.jsonl [top N]
import { readFileSync } from 'node:fs';

const lines = readFileSync(process.argv[2], 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const top = Number(process.argv[3] ?? 40);
const total = (l) => l.cpu + l.children;
lines.sort((a, b) => total(b) - total(a));
const sum = lines.reduce((n, l) => n + total(l), 0);
console.log(`${lines.length} entries, ${sum.toFixed(1)} s of CPU (${(sum / 2).toFixed(0)} s on two busy cores)`);
console.log('   CPU s  (own + children)   wall s  file');
for (const l of lines.slice(0, top))
  console.log(
    `${total(l).toFixed(1).padStart(8)}  (${l.cpu.toFixed(1)} + ${l.children.toFixed(1)})`.padEnd(28) +
      `${(l.wall ?? 0).toFixed(1).padStart(7)}  ${l.file}`,
  );
