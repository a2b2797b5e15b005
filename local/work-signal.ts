import { BroadcastChannel } from 'node:worker_threads';

/**
 * The runner's in-process signal that work came in: a request the gateway hands to a function, a batch a poller
 * hands to a worker. The scheduled sweepers listen to it (./scheduler.ts): one whose runs find nothing waits longer
 * and longer between runs, and this brings it back to its usual pace as soon as anything could have given it work.
 * A BroadcastChannel reaches every thread of this process (the gateway, the workers and the main one are apart).
 */
const CHANNEL = 'switchboard:local:work';

/** At most one signal a second from each thread: a listener only needs to know that work came in lately. */
const SIGNAL_EVERY_MS = 1_000;

let sender: BroadcastChannel | undefined;
let signalledAt = Number.NEGATIVE_INFINITY;

/** Tells the listeners (on any thread) that work came in; cheap enough for every request. */
export function signalWork(now = Date.now()): void {
  if (now - signalledAt < SIGNAL_EVERY_MS) return;
  signalledAt = now;
  if (!sender) {
    sender = new BroadcastChannel(CHANNEL);
    // The channel alone never keeps the process (or a thread) alive.
    sender.unref();
  }
  sender.postMessage(now);
}

/** Calls `listener` whenever work comes in (a second apart at most per thread that signals it), until `close()`. */
export function onWork(listener: () => void): { close(): void } {
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = () => listener();
  return { close: () => channel.close() };
}
