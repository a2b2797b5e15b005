import { parentPort, workerData } from 'node:worker_threads';
import { startWorkers, type WorkersOptions } from './workers.ts';

/**
 * Entry of the runner's workers thread (started by ./workers-thread-bootstrap.mjs): runs the queue and scheduled
 * workers, answers `ready` (or `failed`), and stops them on `stop`.
 */
const port = parentPort!;
try {
  const workers = await startWorkers(workerData as WorkersOptions);
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    workers.stop().then(
      () => port.postMessage({ type: 'stopped' }),
      (error: unknown) => port.postMessage({ type: 'stopped', error: String(error) }),
    );
  });
  port.postMessage({ type: 'ready' });
} catch (error) {
  port.postMessage({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
