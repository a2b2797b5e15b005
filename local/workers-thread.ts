import { serveInThread } from './threads.ts';
import { startWorkers, type WorkersOptions } from './workers.ts';

/** The workers thread: the queue and scheduled workers (./workers.ts). */
await serveInThread(async (options: WorkersOptions) => {
  const workers = await startWorkers(options);
  return { info: {}, stop: () => workers.stop() };
});
