// Preloaded (`node --import`) into a service a benchmark profiles: SIGUSR2 starts V8's CPU profiler on the main
// thread, the next SIGUSR2 stops it and writes `$PROFILE_DIR/<n>.cpuprofile`, then prints `profile written <path>`
// on stderr. With LOCAL_THREADS=0 the main thread is the whole service (dynalite, the gateway, the functions), so one
// profile covers what a request costs, and only the requests between the two signals are in it (`--cpu-prof` would
// also count the start-up and the set-up).
import { writeFileSync } from 'node:fs';
import { Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

// While the profiler runs, every request the process's own HTTP servers take (the stand-ins' API calls by their
// X-Amz-Target or SQS/S3 action, the gateway's by path) is counted, with its body's bytes; printed with the profile.
const calls = new Map();
const emit = Server.prototype.emit;
Server.prototype.emit = function (event, req, ...rest) {
  if (running && event === 'request') {
    const target =
      req.headers['x-amz-target'] ??
      `${req.method} ${String(req.url)
        .split('?')[0]
        .replace(/[A-Za-z0-9_-]{16,}/g, ':id')}`;
    const row = calls.get(target) ?? { n: 0, bytes: 0 };
    row.n++;
    row.bytes += Number(req.headers['content-length'] ?? 0);
    calls.set(target, row);
  }
  return emit.call(this, event, req, ...rest);
};

const session = new Session();
session.connect();
let running = false;
let n = 0;
process.on('SIGUSR2', async () => {
  if (!running) {
    running = true;
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 250) });
    calls.clear();
    await session.post('Profiler.start');
    process.stderr.write('profile started\n');
    return;
  }
  running = false;
  const { profile } = await session.post('Profiler.stop');
  const path = join(process.env.PROFILE_DIR ?? '.', `${++n}.cpuprofile`);
  writeFileSync(path, JSON.stringify(profile));
  writeFileSync(`${path}.calls.json`, JSON.stringify(Object.fromEntries(calls)));
  process.stderr.write(`profile written ${path}\n`);
});
