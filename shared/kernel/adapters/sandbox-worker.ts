import { parentPort } from 'node:worker_threads';
import { encode, SandboxTaskError } from './thread-sandbox.ts';

/** What a task may do besides computing: ask the thread that called it (an OCR engine lives there, say). */
export interface SandboxContext {
  ask<T>(name: string, input: unknown, transfer?: ArrayBuffer[]): Promise<T>;
}

/** A task: its input as posted, its answer (and buffers to hand over rather than copy). */
export type SandboxTask = (
  input: never,
  context: SandboxContext,
) => Promise<unknown | { value: unknown; transfer: ArrayBuffer[] }>;

/** Marks an answer whose buffers are handed over to the caller's thread. */
export function transferred(value: unknown, transfer: ArrayBuffer[]): { value: unknown; transfer: ArrayBuffer[] } {
  return Object.assign({ value, transfer }, { [TRANSFER]: true });
}
const TRANSFER = Symbol('transfer');

type ToWorker =
  | { type: 'call'; id: number; task: string; input: unknown }
  | { type: 'answer'; askId: number; value?: unknown; error?: ReturnType<typeof encode> };

/**
 * The worker side of ./thread-sandbox.ts: answers the calls posted to this thread with `tasks`; a task's error
 * crosses as its name, message and plain fields. Called once by the worker's entry module.
 */
export function serveSandbox(tasks: Record<string, SandboxTask>): void {
  const port = parentPort;
  if (!port) throw new Error('serveSandbox runs in a worker thread');
  let nextAsk = 0;
  const asked = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  port.on('message', (message: ToWorker) => {
    if (message.type === 'answer') {
      const waiting = asked.get(message.askId);
      asked.delete(message.askId);
      if (message.error)
        waiting?.reject(new SandboxTaskError(message.error.name, message.error.message, message.error.fields));
      else waiting?.resolve(message.value);
      return;
    }
    const context: SandboxContext = {
      ask: <T>(name: string, input: unknown, transfer: ArrayBuffer[] = []) =>
        new Promise<T>((resolve, reject) => {
          const askId = nextAsk++;
          asked.set(askId, { resolve: resolve as (v: unknown) => void, reject });
          port.postMessage({ type: 'ask', id: message.id, askId, name, input }, transfer);
        }),
    };
    const task = tasks[message.task];
    const running = task
      ? Promise.resolve().then(() => task(message.input as never, context))
      : Promise.reject(new Error(`no sandbox task ${message.task}`));
    running.then(
      (answer) => {
        if (answer && typeof answer === 'object' && TRANSFER in answer) {
          const { value, transfer } = answer as unknown as { value: unknown; transfer: ArrayBuffer[] };
          port.postMessage({ type: 'result', id: message.id, value }, transfer);
        } else port.postMessage({ type: 'result', id: message.id, value: answer });
      },
      (error: unknown) => port.postMessage({ type: 'error', id: message.id, error: encode(error) }),
    );
  });
  port.postMessage({ type: 'ready' });
}
