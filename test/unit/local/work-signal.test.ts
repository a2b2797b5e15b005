import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { onDueWritten, onWork, signalWork, watchDueWrites } from '#local/work-signal.ts';

describe("the runner's work signal", () => {
  it('reaches the listeners, at most once a second from one thread', async () => {
    // Times of this test's own, far from the clock's: a signal another file's service sent in this process (the
    // channel reaches every thread) is told apart by its time, and an earlier real-time signal from this thread must
    // not silence these (a CI run heard none of them when a previous file had signalled at the real time).
    const base = 10_000;
    const heard: number[] = [];
    const listening = onWork((sentAt) => {
      if (sentAt >= base && sentAt < base + 10_000) heard.push(sentAt);
    });
    try {
      signalWork(base);
      signalWork(base + 500);
      signalWork(base + 1_000);
      // A BroadcastChannel message comes on a later turn of the event loop, later still on a loaded machine (100 ms
      // was once too short in CI): wait for the two, then a little more for a third that must not come.
      const until = performance.now() + 10_000;
      while (heard.length < 2 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([base, base + 1_000]);
    } finally {
      listening.close();
    }
  });

  it('is not silenced by a signal sent at a later time (a clock set back)', async () => {
    const heard: number[] = [];
    const listening = onWork((sentAt) => {
      if (sentAt === 50_000 || sentAt === 40_000) heard.push(sentAt);
    });
    try {
      signalWork(50_000);
      signalWork(40_000);
      const until = performance.now() + 10_000;
      while (heard.length < 2 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual([50_000, 40_000]);
    } finally {
      listening.close();
    }
  });
});

describe('the due-written signal in front of the DynamoDB stand-in', () => {
  /**
   * The signals heard for a request to a stand-in with `watchDueWrites` in front, its body coming in `chunks`; waits
   * up to 10 s for one when `expected` (a BroadcastChannel message comes late on a loaded machine), and a little more
   * for signals that must not come.
   */
  async function heardFor(target: string, chunks: string[], expected: boolean): Promise<number> {
    const server = new EventEmitter();
    watchDueWrites(server as unknown as Server);
    let heard = 0;
    const listening = onDueWritten(() => heard++);
    try {
      const req = Object.assign(new EventEmitter(), { headers: { 'x-amz-target': target } });
      server.emit('request', req);
      for (const chunk of chunks) req.emit('data', Buffer.from(chunk));
      req.emit('end');
      const until = performance.now() + (expected ? 10_000 : 300);
      while (!heard && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      return heard;
    } finally {
      listening.close();
    }
  }
  const body = '{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"DUE#2026-12-02T15:40#03"},"sk":{"S":"x"}}}}]}}';

  it('hears a due entry whose key is split between two chunks of the body, once', async () => {
    const at = body.indexOf('DUE#');
    const split = [body.slice(0, at - 3), body.slice(at - 3)];
    expect(await heardFor('DynamoDB_20120810.BatchWriteItem', split, true)).toBe(1);
    expect(await heardFor('DynamoDB_20120810.BatchWriteItem', [body, body], true)).toBe(1);
  });

  it('leaves reads alone, and writes of other keys', async () => {
    expect(await heardFor('DynamoDB_20120810.Query', [body], false)).toBe(0);
    expect(await heardFor('DynamoDB_20120810.PutItem', [body.replace('DUE#', 'MSG#')], false)).toBe(0);
  });
});
