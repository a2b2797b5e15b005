import { readFileSync } from 'node:fs';

/** User + system seconds of this process and of its children that have exited (/proc/self/stat). */
export function processCpu(pid: number | 'self' = 'self'): { own: number; children: number } {
  // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th, in ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = (i: number) => Number(fields[i]) / 100;
  return { own: tick(11) + tick(12), children: tick(13) + tick(14) };
}
