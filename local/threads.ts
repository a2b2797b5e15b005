import { parentPort, SHARE_ENV, Worker, workerData } from 'node:worker_threads';

/**
 * The local runner's threads: one process, its parts on their own event loops so they use the machine's cores
 * (the stand-ins, the queue and scheduled workers, the gateway with the HTTP functions). A thread runs a module that
 * calls {@link serveInThread}; the main thread starts it with {@link startThread} and gets what it published.
 */
export interface ThreadHandle<T> {
  info: T;
  /**
   * Sends `message` to the thread's module (which listens on `parentPort`) and resolves when it answers with
   * `{ type: '<message.type>:done' }`.
   */
  ask(message: { type: string; [field: string]: unknown }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How a thread loads the project's TypeScript, whatever loads the main thread's (`npm start`, vitest's module runner
 * in tests): Node's own type transform, in the thread itself. Decision (measured, BENCHMARKS.md issue 2, start-up
 * after issue 14): tsx's loader hooks run on a hooks thread of their own and every `import` and `require` of the
 * thread (about a thousand modules: the AWS SDK, fauxqs, the functions) made a round trip to it; start to ready went
 * from ~4.3 s to ~2.3 s without them. `transform-types`, not just stripping: the code uses parameter properties.
 */
const THREAD_EXEC_ARGV = ['--experimental-transform-types', '--disable-warning=ExperimentalWarning'];

/** Starts `entry` (a module URL) on a thread, with `data` as its input; resolves once it is ready. */
export async function startThread<T>(
  name: string,
  entry: URL,
  data: unknown,
  options: { onDeath?: (error: Error) => void } = {},
): Promise<ThreadHandle<T>> {
  const thread = new Worker(entry, {
    workerData: { data },
    env: SHARE_ENV,
    execArgv: THREAD_EXEC_ARGV,
    name,
  });
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const reply = (types: string[]) =>
    new Promise<{ type: string; info?: T; error?: string }>((resolve, reject) => {
      const onMessage = (message: { type: string; info?: T; error?: string }) => {
        if (!types.includes(message.type)) return;
        thread.off('message', onMessage);
        resolve(message);
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
      void exited.then(() => reject(new Error(`the ${name} thread exited`)));
    });
  const started = await reply(['ready', 'failed']);
  if (started.type === 'failed') {
    await thread.terminate();
    throw new Error(`the ${name} thread failed to start: ${started.error}`);
  }
  // A thread that dies while the service runs (an uncaught exception in it) takes the process down, as it would have
  // on the main thread: a runner whose gateway or workers silently stopped would look alive and serve nothing.
  const onDeath =
    options.onDeath ??
    ((error: Error) =>
      setImmediate(() => {
        throw error;
      }));
  let stopping = false;
  thread.on('error', (error) => {
    if (!stopping)
      onDeath(
        new Error(
          `the ${name} thread died: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        ),
      );
  });
  return {
    info: started.info as T,
    async ask(message) {
      const done = reply([`${message.type}:done`]);
      thread.postMessage(message);
      await done;
    },
    async stop() {
      stopping = true;
      const stopped = reply(['stopped']).catch(() => undefined);
      thread.postMessage({ type: 'stop' });
      await Promise.race([stopped, exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
      await thread.terminate();
    },
  };
}

/** In a thread's module: starts what it runs, publishes `info` to the main thread, stops it when asked. */
export async function serveInThread<I, T>(
  start: (data: I) => Promise<{ info: T; stop(): Promise<void> }>,
): Promise<void> {
  const port = parentPort!;
  try {
    const running = await start((workerData as { data: I }).data);
    port.on('message', (message: { type: string }) => {
      if (message.type !== 'stop') return;
      running.stop().then(
        () => port.postMessage({ type: 'stopped' }),
        (error: unknown) => port.postMessage({ type: 'stopped', error: String(error) }),
      );
    });
    port.postMessage({ type: 'ready', info: running.info });
  } catch (error) {
    port.postMessage({
      type: 'failed',
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}
