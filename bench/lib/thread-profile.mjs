// Loaded first in every runner thread (LOCAL_THREAD_IMPORT, ./local/thread-bootstrap.mjs) of a test group's service
// profiled with TEST_SERVICE_CPU_PROF=<dir> (test/support/global-service.ts): V8's CPU profiler runs from the thread's
// start, and the runner's `stop` message writes `<dir>/<thread>-<pid>-<threadId>.cpuprofile`, before the thread is
// terminated (`--cpu-prof` writes nothing for a terminated thread).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { parentPort, threadId, workerData } from 'node:worker_threads';

const dir = process.env.TEST_SERVICE_CPU_PROF_THREADS;
if (dir && parentPort) {
  const name = String(workerData?.entry ?? 'thread')
    .split('/')
    .pop()
    .replace(/\.\w+$/, '');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  let written = false;
  parentPort.on('message', (message) => {
    if (message?.type !== 'stop' || written) return;
    written = true;
    // The in-thread session answers synchronously: the file is written before the runner's own stop goes on.
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}-${process.pid}-${threadId}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
