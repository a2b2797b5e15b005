import { Worker } from 'node:worker_threads';

/**
 * Untrusted parsing off the caller's thread: a pool of worker threads, each with a V8 heap ceiling
 * (`resourceLimits`) and every call with a deadline, past which the worker is terminated. On AWS a Lambda's memory
 * and timeout are this sandbox and parsing runs in-process; the local runner, where every function shares a few
 * threads, runs it here so one tenant's file cannot stall another tenant's request.
 *
 * `resourceLimits` caps the JavaScript heap only: decoded bytes are ArrayBuffers, outside it, and are bounded by the
 * parsers themselves (the PDF decode bound, the mail part ceilings). The sandbox is the second layer: a hard deadline,
 * a heap cap for what those bounds do not count, and an event loop of its own.
 *
 * A worker serves one lease at a time (./sandbox-worker.ts answers the calls), so a terminated worker takes no other
 * caller's work with it. Workers start on first use and one stays warm between leases.
 */
export interface ThreadSandboxOptions {
  /** Module the worker runs first (it may load a TypeScript loader), then `entry` (`workerData.entry`). */
  bootstrap: URL;
  /** The worker's module: calls `serveSandbox` with its tasks. */
  entry: URL;
  /** V8 old-generation heap of a worker, MB. */
  memoryMb: number;
  /** Workers busy at once; more leases wait their turn. */
  maxWorkers: number;
  /** A warm worker idle this long is stopped. Default 60 s. */
  idleMs?: number;
}

/** Why a sandboxed call was stopped: its worker ran out of heap, passed its deadline, or died. */
export class SandboxLimitError extends Error {
  constructor(
    readonly kind: 'memory' | 'time' | 'crash',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SandboxLimitError';
  }
}

/** An error thrown by a task inside the sandbox, as it crossed: its name, message and plain own fields. */
export class SandboxTaskError extends Error {
  constructor(
    readonly remoteName: string,
    message: string,
    readonly fields: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SandboxTaskError';
  }
}

export interface CallOptions {
  /** The worker is terminated past this many milliseconds. */
  deadlineMs: number;
  /** Aborting terminates the worker; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Buffers handed over rather than copied. */
  transfer?: ArrayBuffer[];
  /** Answers the task's calls back to this thread (`context.ask` in the worker). */
  answer?: (name: string, input: unknown) => Promise<{ value: unknown; transfer?: ArrayBuffer[] }>;
}

/** One worker, held for several calls (a document opened, then read, then closed). */
export interface SandboxLease {
  call<T>(task: string, input: unknown, options: CallOptions): Promise<T>;
  /** Gives the worker back (or stops it, if it failed). */
  release(): void;
}

type FromWorker =
  | { type: 'ready' }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: { name: string; message: string; fields: Record<string, unknown> } }
  | { type: 'ask'; id: number; askId: number; name: string; input: unknown };

export class ThreadSandbox {
  private readonly idle: SandboxWorker[] = [];
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: ThreadSandboxOptions) {}

  /** A worker of its own for several calls; waits while `maxWorkers` are busy. */
  async lease(signal?: AbortSignal): Promise<SandboxLease> {
    while (this.busy >= this.options.maxWorkers) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.busy++;
    let worker: SandboxWorker;
    try {
      worker = this.idle.pop() ?? (await SandboxWorker.start(this.options));
    } catch (error) {
      this.handBack(undefined);
      throw error;
    }
    worker.cancelIdleStop();
    let released = false;
    return {
      call: (task, input, options) => {
        if (released) return Promise.reject(new Error('the sandbox lease was released'));
        return worker.call(task, input, options);
      },
      release: () => {
        if (released) return;
        released = true;
        this.handBack(worker);
      },
    };
  }

  /** One call on a worker of its own. */
  async run<T>(task: string, input: unknown, options: CallOptions): Promise<T> {
    const lease = await this.lease(options.signal);
    try {
      return await lease.call<T>(task, input, options);
    } finally {
      lease.release();
    }
  }

  /** Stops every idle worker (busy ones stop when released). */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.stop()));
  }

  private handBack(worker: SandboxWorker | undefined): void {
    this.busy--;
    if (worker?.alive) {
      // One warm worker is kept; more idle ones are stopped at once.
      if (this.idle.length) void worker.stop();
      else {
        this.idle.push(worker);
        worker.stopWhenIdle(this.options.idleMs ?? 60_000, () => {
          const at = this.idle.indexOf(worker);
          if (at >= 0) this.idle.splice(at, 1);
        });
      }
    } else if (worker) void worker.stop();
    this.waiting.shift()?.();
  }
}

class SandboxWorker {
  alive = true;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  private death: SandboxLimitError | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly thread: Worker,
    private readonly memoryMb: number,
  ) {}

  static async start(options: ThreadSandboxOptions): Promise<SandboxWorker> {
    const thread = new Worker(options.bootstrap, {
      workerData: { entry: options.entry.href },
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: 32 },
      execArgv: ['--disable-warning=ExperimentalWarning'],
      name: 'untrusted-parsing',
    });
    // A worker does not keep the process alive between calls.
    thread.unref();
    const worker = new SandboxWorker(thread, options.memoryMb);
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== 'ready') return;
        thread.off('message', onMessage);
        thread.off('error', reject);
        resolve();
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the sandbox worker exited at start (${code})`)));
    });
    worker.listen();
    return worker;
  }

  private listen(): void {
    this.thread.on('message', (message: FromWorker) => {
      if (message.type === 'result') this.settle(message.id, (p) => p.resolve(message.value));
      else if (message.type === 'error') {
        const { name, message: text, fields } = message.error;
        this.settle(message.id, (p) => p.reject(new SandboxTaskError(name, text, fields)));
      }
    });
    this.thread.on('error', (error: Error & { code?: string }) => {
      this.die(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new SandboxLimitError('memory', `Parsing needed more than ${this.memoryMb} MB of memory.`, { cause: error })
          : new SandboxLimitError('crash', 'The parsing worker failed.', { cause: error }),
      );
    });
    this.thread.on('exit', () => this.die(new SandboxLimitError('crash', 'The parsing worker stopped.')));
  }

  call<T>(task: string, input: unknown, options: CallOptions): Promise<T> {
    if (!this.alive) return Promise.reject(this.death);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.die(new SandboxLimitError('time', `Parsing took longer than ${Math.round(options.deadlineMs / 1000)} s.`));
      }, options.deadlineMs);
      const onAbort = () => {
        this.settle(id, (p) => p.reject(options.signal!.reason));
        this.die(new SandboxLimitError('crash', 'The call was aborted.'));
      };
      const onAsk = options.answer
        ? (message: FromWorker) => {
            if (message.type !== 'ask' || message.id !== id) return;
            options.answer!(message.name, message.input).then(
              ({ value, transfer }) =>
                this.alive && this.thread.postMessage({ type: 'answer', askId: message.askId, value }, transfer ?? []),
              (error: unknown) =>
                this.alive && this.thread.postMessage({ type: 'answer', askId: message.askId, error: encode(error) }),
            );
          }
        : undefined;
      if (onAsk) this.thread.on('message', onAsk);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (onAsk) this.thread.off('message', onAsk);
      };
      this.pending.set(id, {
        resolve: (value) => {
          done();
          resolve(value as T);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      if (options.signal?.aborted) return onAbort();
      this.thread.postMessage({ type: 'call', id, task, input }, options.transfer ?? []);
    });
  }

  stopWhenIdle(ms: number, stopped: () => void): void {
    this.idleTimer = setTimeout(() => {
      stopped();
      void this.stop();
    }, ms);
    this.idleTimer.unref();
  }

  cancelIdleStop(): void {
    clearTimeout(this.idleTimer);
  }

  async stop(): Promise<void> {
    this.cancelIdleStop();
    this.alive = false;
    await this.thread.terminate();
  }

  private settle(id: number, how: (p: { resolve(v: unknown): void; reject(e: unknown): void }) => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    how(pending);
  }

  /** Every pending call fails with `reason`; the worker is terminated and never used again. */
  private die(reason: SandboxLimitError): void {
    if (this.death) return;
    this.death = reason;
    this.alive = false;
    for (const [id] of this.pending) this.settle(id, (p) => p.reject(reason));
    void this.thread.terminate();
  }
}

/** An error as it crosses threads: name, message and its own plain fields (a code, a limit, a reason). */
export function encode(error: unknown): { name: string; message: string; fields: Record<string, unknown> } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}
