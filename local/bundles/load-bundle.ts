import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { type LocalResponseStream, markStreaming } from '../response-streaming.ts';

/** How one function's bundle is started (prepared by ./bundles-mode.ts, read here from LOCAL_BUNDLES). */
export interface BundleLaunch {
  fn: string;
  /** The Lambda asset folder: `index.mjs` exports `handler`. */
  dir: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** The whole environment the function sees, as on Lambda: nothing of the runner's leaks in. */
  env: Record<string, string>;
}

type Invocation = {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** A streaming function's destination: the bytes it writes, as they come. */
  responseStream?: LocalResponseStream;
};

/**
 * A function run from its deployed bundle: `index.mjs` of its asset folder imported by plain Node (no TypeScript
 * loader) on a thread of its own, with its own `process.env` (the template's variables), as in a Lambda sandbox.
 * Invocations are messages to that thread; the returned handler has the signature the gateway and pollers call.
 * A thread that dies (an uncaught error, `process.exit`) fails its invocations in flight and is started again on
 * the next one, as Lambda starts a new sandbox.
 */
export async function loadBundle(fn: string): Promise<(event: unknown, context: Context) => Promise<unknown>> {
  const launches = JSON.parse(process.env.LOCAL_BUNDLES ?? '{}') as Record<string, BundleLaunch>;
  const launch = launches[fn];
  if (!launch) throw new Error(`No bundle launch for ${fn} (LOCAL_BUNDLES is set by the runner in bundles mode)`);
  // The template gives PUBLIC_BASE_URL as the stage's execute-api URL; here the API is the local gateway, whose base
  // URL the HTTP server sets before it loads the functions (what Twilio signatures and inbound URLs are made from).
  if (launch.env.PUBLIC_BASE_URL && process.env.PUBLIC_BASE_URL)
    launch.env.PUBLIC_BASE_URL = process.env.PUBLIC_BASE_URL;
  let sandbox = await startSandbox(launch);
  const current = async () => {
    if (sandbox.dead) sandbox = await startSandbox(launch);
    return sandbox;
  };
  if (!sandbox.streaming) return async (event, context) => (await current()).invoke(event, context);
  // A function that streams its response: the sandbox posts the bytes as the function writes them.
  return markStreaming(async (event: unknown, responseStream: LocalResponseStream, context: Context) => {
    await (await current()).invoke(event, context, responseStream);
  }) as unknown as (event: unknown, context: Context) => Promise<unknown>;
}

async function startSandbox(launch: BundleLaunch) {
  const heap = /--max-old-space-size=(\d+)/.exec(launch.env.NODE_OPTIONS ?? '')?.[1];
  const worker = new Worker(new URL('./bundle-thread.mjs', import.meta.url), {
    env: launch.env,
    execArgv: [],
    name: `bundle ${launch.fn}`,
    workerData: {
      entry: pathToFileURL(join(launch.dir, 'index.mjs')).href,
      sourceMaps: /--enable-source-maps/.test(launch.env.NODE_OPTIONS ?? ''),
    },
    ...(heap ? { resourceLimits: { maxOldGenerationSizeMb: Number(heap) } } : {}),
  });
  worker.unref();
  const pending = new Map<number, Invocation>();
  let next = 0;
  const state = {
    dead: false,
    streaming: false,
    invoke(event: unknown, context: Context, responseStream?: LocalResponseStream): Promise<unknown> {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, ...(responseStream ? { responseStream } : {}) });
        // The client went away: the function's stream is destroyed in its sandbox too.
        responseStream?.once('close', () => {
          if (pending.has(id)) worker.postMessage({ type: 'abort', id });
        });
        worker.postMessage({
          type: 'invoke',
          id,
          event,
          context: {
            functionName: context.functionName,
            functionVersion: context.functionVersion,
            invokedFunctionArn: context.invokedFunctionArn,
            memoryLimitInMB: context.memoryLimitInMB,
            awsRequestId: context.awsRequestId,
            logGroupName: context.logGroupName,
            logStreamName: context.logStreamName,
            deadline: Date.now() + context.getRemainingTimeInMillis(),
          },
        });
      });
    },
  };
  const die = (error: Error) => {
    state.dead = true;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: SandboxMessage) => {
      if (message.type === 'ready') {
        state.streaming = message.streaming === true;
        return resolve();
      }
      if (message.type === 'failed') return reject(toError(message.error!, `${launch.fn} failed its cold start`));
      const invocation = pending.get(message.id!);
      if (!invocation) return;
      if (message.type === 'head') {
        invocation.responseStream?.setContentType(message.contentType!);
        return;
      }
      if (message.type === 'chunk') {
        if (invocation.responseStream && !invocation.responseStream.destroyed)
          invocation.responseStream.write(Buffer.from(message.chunk!));
        return;
      }
      pending.delete(message.id!);
      if (message.type === 'result') invocation.resolve(message.result);
      else invocation.reject(toError(message.error!));
    });
    worker.on('error', (error) => {
      reject(error);
      die(error);
    });
    worker.on('exit', (code) => {
      reject(new Error(`${launch.fn} exited during its cold start (code ${code})`));
      die(new Error(`${launch.fn}'s sandbox exited (code ${code})`));
    });
  });
  await ready;
  return state;
}

interface SandboxMessage {
  type: 'ready' | 'failed' | 'head' | 'chunk' | 'result' | 'error';
  id?: number;
  streaming?: boolean;
  contentType?: string;
  chunk?: Uint8Array;
  result?: unknown;
  error?: SerializedError;
}

interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

function toError(e: SerializedError, prefix?: string): Error {
  const error = new Error(prefix ? `${prefix}: ${e.message}` : e.message);
  error.name = e.name;
  if (e.stack) error.stack = prefix ? `${prefix}: ${e.stack}` : e.stack;
  return error;
}
