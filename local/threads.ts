import { flushCompileCache } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type MessagePort, parentPort, SHARE_ENV, Worker, workerData } from 'node:worker_threads';

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
 * Node's flags for the threads, as `npm start` gives the main thread its own (./typescript-hooks.mjs loads the code).
 * Each invocation's scope (./lambda-context.ts) is an AsyncLocalStorage: on Node 22 its default form hooks every
 * promise the thread creates (the AWS SDK makes many per call); the context-frame form, Node 24's default, does not.
 */
const THREAD_EXEC_ARGV = [
  '--enable-source-maps',
  '--disable-warning=ExperimentalWarning',
  '--experimental-async-context-frame',
];

/** The runner's thread modules (`local/<name>.ts`), which the tests' services may run from a bundle. */
export const RUNNER_THREAD_ENTRIES = ['http-thread', 'queues-thread', 'workers-thread'];

/**
 * With LOCAL_RUNNER_BUNDLE (a folder test/support/runner-bundle.ts built: the tests' services), a runner thread runs
 * its module's bundle from there rather than loading the source module by module; anything else runs as given.
 */
export function threadEntry(entry: URL, bundle = process.env.LOCAL_RUNNER_BUNDLE): string {
  const name = /\/local\/([a-z-]+)\.ts$/.exec(entry.pathname)?.[1];
  if (!bundle || !name || !RUNNER_THREAD_ENTRIES.includes(name)) return entry.href;
  return pathToFileURL(join(bundle, `${name}.js`)).href;
}

/**
 * Starts `entry` (a module URL) on a thread, with `data` as its input; resolves once it is ready. With `data` a
 * promise, the thread starts at once and loads its modules while the promise settles, and starts what it runs only
 * with the value (a rejection stops the thread).
 */
export async function startThread<T>(
  name: string,
  entry: URL,
  data: unknown,
  options: { onDeath?: (error: Error) => void } = {},
): Promise<ThreadHandle<T>> {
  const later = data instanceof Promise;
  const thread = new Worker(new URL('./thread-bootstrap.mjs', import.meta.url), {
    workerData: { entry: threadEntry(entry), ...(later ? { later } : { data }) },
    env: SHARE_ENV,
    execArgv: THREAD_EXEC_ARGV,
    name,
  });
  if (later)
    data.then(
      (value: unknown) => thread.postMessage({ type: 'start', data: value }),
      () => void thread.terminate(),
    );
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const reply = (types: string[]) =>
    new Promise<{ type: string; info?: T; error?: string; code?: string }>((resolve, reject) => {
      const onMessage = (message: { type: string; info?: T; error?: string; code?: string }) => {
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
    // The system error's code (EADDRINUSE…) travels with it, so the caller can say which setting to change.
    throw Object.assign(new Error(`the ${name} thread failed to start: ${started.error}`), { code: started.code });
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

/** The input of a thread started before its input was known ({@link startThread} with a promise). */
function startMessage<I>(port: MessagePort): Promise<I> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string; data?: I }) => {
      if (message.type !== 'start') return;
      port.off('message', onMessage);
      resolve(message.data as I);
    };
    port.on('message', onMessage);
  });
}

/** In a thread's module: starts what it runs, publishes `info` to the main thread, stops it when asked. */
export async function serveInThread<I, T>(
  start: (data: I) => Promise<{ info: T; stop(): Promise<void> }>,
): Promise<void> {
  const port = parentPort!;
  const given = workerData as { data?: I; later?: true };
  try {
    const running = await start(given.later ? await startMessage(port) : (given.data as I));
    port.on('message', (message: { type: string }) => {
      if (message.type !== 'stop') return;
      running.stop().then(
        () => port.postMessage({ type: 'stopped' }),
        (error: unknown) => port.postMessage({ type: 'stopped', error: String(error) }),
      );
    });
    port.postMessage({ type: 'ready', info: running.info });
    // The thread's compiled modules into V8's cache now, as the main thread does (main.ts): a process that is killed
    // never writes it.
    flushCompileCache();
  } catch (error) {
    port.postMessage({
      type: 'failed',
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      code: typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined,
    });
  }
}
