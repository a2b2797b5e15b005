import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  onChargesWritten,
  onDueWritten,
  onMarksWritten,
  onWork,
  signalWork,
  watchSweptWrites,
} from '#local/work-signal.ts';

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

describe('the due-written and marks-written signals in front of the DynamoDB stand-in', () => {
  /**
   * The signals heard for a request to a stand-in with `watchSweptWrites` in front, its body coming in `chunks`; waits
   * up to 10 s for one when `expected` (a BroadcastChannel message comes late on a loaded machine), and a little more
   * for signals that must not come.
   */
  async function heardFor(
    target: string,
    chunks: string[],
    expected: boolean,
    on: typeof onDueWritten = onDueWritten,
  ): Promise<number> {
    const server = new EventEmitter();
    watchSweptWrites(server as unknown as Server);
    let heard = 0;
    const listening = on(() => heard++);
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

  const update =
    '{"Key":{"pk":{"S":"MSG#m"},"sk":{"S":"STATUS"}},"ExpressionAttributeValues":{":obMark":{"S":"{\\"e\\":1}"},' +
    '":obPk":{"S":"OUTBOX#0a"},":obSk":{"S":"000017#MSG#m"}}}';

  it('hears an outbox mark, split between two chunks or not, once, and not for a due entry', async () => {
    const at = update.indexOf('OUTBOX#');
    const split = [update.slice(0, at - 2), update.slice(at - 2)];
    expect(await heardFor('DynamoDB_20120810.UpdateItem', split, true, onMarksWritten)).toBe(1);
    expect(await heardFor('DynamoDB_20120810.UpdateItem', [update, update], true, onMarksWritten)).toBe(1);
    expect(await heardFor('DynamoDB_20120810.BatchWriteItem', [body], false, onMarksWritten)).toBe(0);
    expect(await heardFor('DynamoDB_20120810.UpdateItem', [update], false)).toBe(0);
  });

  it("leaves the sweep's reads of the outbox alone, and OUTBOX# inside a value", async () => {
    expect(await heardFor('DynamoDB_20120810.Query', [update], false, onMarksWritten)).toBe(0);
    const quoted = '{"Item":{"pk":{"S":"P#1"},"name":{"S":"\\"OUTBOX#0a\\""}}}';
    expect(await heardFor('DynamoDB_20120810.PutItem', [quoted], false, onMarksWritten)).toBe(0);
  });

  it('hears a credit charge, and only on the charges signal', async () => {
    const charge =
      '{"Key":{"pk":{"S":"CREDITS#p"},"sk":{"S":"2026-12"}},"ExpressionAttributeValues":' +
      '{":sweepPk":{"S":"CREDIT_SWEEP#03"},":sweepSk":{"S":"000017"}}}';
    expect(await heardFor('DynamoDB_20120810.UpdateItem', [charge], true, onChargesWritten)).toBe(1);
    expect(await heardFor('DynamoDB_20120810.UpdateItem', [charge], false, onMarksWritten)).toBe(0);
    expect(await heardFor('DynamoDB_20120810.UpdateItem', [update], false, onChargesWritten)).toBe(0);
  });
});
