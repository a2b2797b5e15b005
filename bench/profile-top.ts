/**
 * Where a profiled process spent its CPU: every `.cpuprofile` under a folder (a test group's service profiled with
 * TEST_SERVICE_CPU_PROF, test/support/global-service.ts: its main thread and each runner thread), each profile's busy
 * time, then self time by module and by function over all of them (idle left out).
 *
 * Run: `npx tsx bench/profile-top.ts <folder> [rows, default 25]`
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { addInto, type CpuProfile, selfTimes } from './lib/cpu-profile.ts';

const [folder, rowsArg] = process.argv.slice(2);
if (!folder) throw new Error('usage: npx tsx bench/profile-top.ts <folder> [rows]');
const rows = Number(rowsArg ?? 25);

const files = (readdirSync(folder, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => join(folder, f))
  .sort();
if (!files.length) throw new Error(`${folder}: no .cpuprofile file`);

const idle = (k: string) => k.startsWith('(idle)');
const busy = (m: Map<string, number>) => [...m].filter(([k]) => !idle(k)).reduce((n, [, us]) => n + us, 0);
const fns = new Map<string, number>();
const modules = new Map<string, number>();
console.log('busy s  profile');
for (const file of files) {
  const times = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  console.log(`${(busy(times.modules) / 1e6).toFixed(1).padStart(6)}  ${relative(folder, file)}`);
  addInto(fns, times.fns);
  addInto(modules, times.modules);
}
const total = busy(modules);
const top = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (s, % of ${(total / 1e6).toFixed(1)} s busy)`);
  for (const [k, us] of [...m]
    .filter(([k]) => !idle(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows))
    console.log(`${(us / 1e6).toFixed(2).padStart(7)} ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
};
top('by module', modules);
top('by function', fns);
