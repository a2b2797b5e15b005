/**
 * CPU time of the runner's HTTP thread (gateway, completion function, its SDK clients) per POST /api/v1/ai/completion
 * with a bot, offline provider, 16 connections. `bench/completion.ts` measures the whole process, where dynalite's
 * share is the same for every tree and dilutes a change in the function's own cost; this reads each thread's CPU
 * time from Linux's /proc and keeps the busiest thread but the main one (dynalite, this script), which is the HTTP
 * thread under this load. For a same-run comparison of two trees, run it in each, one after the other, alternating.
 * Run: POWERTOOLS_METRICS_DISABLED=true npx tsx bench/completion-thread-cpu.ts [--seconds 2] [--rounds 7] [--warmup 8]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startService } from '#local/service.ts';
import { completionCaller } from './lib/completion-caller.ts';
import { load, machine, median } from './lib/harness.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '7' },
    warmup: { type: 'string', default: '8' },
  },
});
const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-thread-cpu-'));
const svc = await startService({
  port: 0,
  dataDir,
  env: { MODEL_PROVIDER: 'offline', BOT_RATE_LIMIT_PER_MINUTE: '100000', POWERTOOLS_LOG_LEVEL: 'SILENT' },
});
const { token, botId } = await completionCaller(svc, 1);

/** CPU time of each thread of this process, in clock ticks (utime + stime, /proc/self/task/<tid>/stat). */
function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(tid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks;
}
const TICKS_PER_SECOND = 100;

const request = {
  url: `${svc.baseUrl}/api/v1/ai/completion`,
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ prompt: 'What are the opening hours of the store on Saturdays?', botId }),
  connections: 16,
};
// Warm-up, not recorded: the SDK + dynalite path runs at about half speed for its first seconds.
await load({ ...request, seconds: Number(values.warmup), warmupSeconds: 0.5 });
const httpThread: number[] = [];
const wholeProcess: number[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const before = threadTicks();
  const cpu = process.cpuUsage();
  const result = await load({ ...request, seconds: Number(values.seconds), warmupSeconds: 0 });
  const used = process.cpuUsage(cpu);
  let busiest = 0;
  for (const [tid, ticks] of threadTicks())
    if (tid !== String(process.pid)) busiest = Math.max(busiest, ticks - (before.get(tid) ?? 0));
  if (Object.keys(result.statuses).some((s) => s !== '200')) throw new Error(JSON.stringify(result.statuses));
  httpThread.push(((busiest / TICKS_PER_SECOND) * 1e6) / result.allRequests);
  wholeProcess.push((used.user + used.system) / result.allRequests);
}
console.log(`${machine()}, ${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(1)}`);
console.log(
  `HTTP thread CPU µs per completion: median ${median(httpThread).toFixed(0)} ` +
    `(${httpThread.map((x) => x.toFixed(0)).join(', ')}); whole process ${median(wholeProcess).toFixed(0)}`,
);
await svc.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
