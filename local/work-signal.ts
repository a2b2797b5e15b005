import type { IncomingMessage, Server } from 'node:http';
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
  // A clock set back (or a caller's own times) starts a new second rather than silencing the signal until it passes.
  if (now >= signalledAt && now - signalledAt < SIGNAL_EVERY_MS) return;
  signalledAt = now;
  sender ??= unrefed(new BroadcastChannel(CHANNEL));
  sender.postMessage(now);
}

/**
 * Calls `listener` whenever work comes in (a second apart at most per thread that signals it), with the time the
 * signal was sent (epoch ms), until `close()`.
 */
export function onWork(listener: (sentAt: number) => void): { close(): void } {
  return listen(CHANNEL, listener);
}

/**
 * The signal that due entries were written (a send scheduled for later, a batch's items, a reschedule): the only
 * writes that give the due sweeper work. It listens to this rather than to every request, because its idle run is
 * the costliest of the sweepers' (a Query of each of its partitions for every minute from a minute back to the
 * lookahead, about 40 each run) and most requests never write a due entry. Sent for every such write (they are few:
 * a batch writes its entries 25 to a request), so no write goes by without a run of the sweep after it.
 */
const DUE_CHANNEL = 'switchboard:local:due-written';
/**
 * The signal that outbox marks were written (an event not yet published, listed in an outbox shard): the only writes
 * that give the event sweeper work, and only once the mark is older than its bound (EVENT_SWEEP_AFTER_SECONDS). Its
 * idle run Queries each of the 64 shards, so it listens to this rather than to every request. Sent for every such
 * write, with the time the stand-in received it (after the mark's own time): the sweeper runs again once that is
 * older than the bound.
 */
const MARKS_CHANNEL = 'switchboard:local:marks-written';
/**
 * The signal that charges were written (a paid request's credit charge lists its month item in a credit sweep shard):
 * the credit sweeper's only work, once a charge is still open after its bound (CREDIT_SWEEP_AFTER_SECONDS). The same
 * as the marks' signal, for the same reason (its idle run Queries each of its 16 shards).
 */
const CHARGES_CHANNEL = 'switchboard:local:charges-written';

/**
 * How the keys the sweepers read start in a write's JSON body: a due entry's partition key
 * (`"pk":{"S":"DUE#<minute>#<shard>"}`), an outbox shard's (the mark's index entry, whether in a new item or an
 * update's values: `{"S":"OUTBOX#<shard>"}`) and a credit sweep shard's (`{"S":"CREDIT_SWEEP#<shard>"}`). The quotes
 * are the body's own (a quote inside a value is escaped), so a value that merely starts with `DUE#` is not taken for
 * a due entry; one that starts with `OUTBOX#` or `CREDIT_SWEEP#` (a name) costs one more sweep at most.
 */
const WATCHED = [
  { mark: Buffer.from('"pk":{"S":"DUE#'), signal: () => signalDueWritten() },
  { mark: Buffer.from('{"S":"OUTBOX#'), signal: () => signalMarksWritten() },
  { mark: Buffer.from('{"S":"CREDIT_SWEEP#'), signal: () => signalChargesWritten() },
];
const LONGEST_MARK = Math.max(...WATCHED.map((w) => w.mark.length));
const WRITES = /\.(PutItem|UpdateItem|BatchWriteItem|TransactWriteItems)$/;

let dueSender: BroadcastChannel | undefined;
let marksSender: BroadcastChannel | undefined;
let chargesSender: BroadcastChannel | undefined;

/** Tells the listeners (on any thread) that due entries were written. */
export function signalDueWritten(): void {
  dueSender ??= unrefed(new BroadcastChannel(DUE_CHANNEL));
  dueSender.postMessage(Date.now());
}

/** Calls `listener` whenever due entries are written, with when (epoch ms), until `close()`. */
export function onDueWritten(listener: (writtenAt: number) => void): { close(): void } {
  return listen(DUE_CHANNEL, listener);
}

/** Tells the listeners (on any thread) that outbox marks were written, now. */
export function signalMarksWritten(now = Date.now()): void {
  marksSender ??= unrefed(new BroadcastChannel(MARKS_CHANNEL));
  marksSender.postMessage(now);
}

/** Calls `listener` whenever outbox marks are written, with when (epoch ms), until `close()`. */
export function onMarksWritten(listener: (writtenAt: number) => void): { close(): void } {
  return listen(MARKS_CHANNEL, listener);
}

/** Tells the listeners (on any thread) that credit charges were written, now. */
export function signalChargesWritten(now = Date.now()): void {
  chargesSender ??= unrefed(new BroadcastChannel(CHARGES_CHANNEL));
  chargesSender.postMessage(now);
}

/** Calls `listener` whenever credit charges are written, with when (epoch ms), until `close()`. */
export function onChargesWritten(listener: (writtenAt: number) => void): { close(): void } {
  return listen(CHARGES_CHANNEL, listener);
}

/**
 * Watches the writes the local DynamoDB stand-in receives, from every thread and process, and signals those that
 * write a due entry, an outbox mark or a credit charge (one signal of each kind per request at most). A removal of due entries is
 * signalled too (its body names them): one more run of the sweep.
 */
export function watchSweptWrites(server: Server): void {
  server.prependListener('request', (req: IncomingMessage) => {
    if (!WRITES.test(String(req.headers['x-amz-target'] ?? ''))) return;
    const unseen = new Set(WATCHED);
    // A mark may be split between two chunks of the body: the end of the last one is read again with the next.
    let carry: Buffer = Buffer.alloc(0);
    req.on('data', (chunk: Buffer) => {
      if (!unseen.size) return;
      const text = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      for (const watched of unseen) {
        if (!text.includes(watched.mark)) continue;
        unseen.delete(watched);
        watched.signal();
      }
      carry = text.subarray(Math.max(0, text.length - LONGEST_MARK + 1));
    });
  });
}

function listen(name: string, listener: (sentAt: number) => void): { close(): void } {
  const channel = unrefed(new BroadcastChannel(name));
  channel.onmessage = (event) => listener((event as { data: number }).data);
  return { close: () => channel.close() };
}

/** A channel alone never keeps the process (or a thread) alive. */
function unrefed(channel: BroadcastChannel): BroadcastChannel {
  channel.unref();
  return channel;
}
