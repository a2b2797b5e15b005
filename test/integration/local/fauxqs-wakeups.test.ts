import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningQueuesAndBuckets, startQueuesAndBuckets } from '#test/support/queues-and-buckets.ts';

/**
 * When the SQS stand-in wakes a waiting receive (patches/fauxqs+2.4.1.patch): on a send, and when a message's
 * visibility or delay ends, at that time. fauxqs 2.4.1 checked every 20 ms for as long as a receive waited, and the
 * runner's pollers always wait (20 s long polls on every worker's queue): CPU for nothing in every idle service.
 */
let stand: RunningQueuesAndBuckets;
let sqs: SQSClient;
beforeAll(async () => {
  stand = await startQueuesAndBuckets('switchboard-fauxqs-wakeups');
  sqs = stand.sqs;
});
afterAll(async () => {
  await stand?.stop();
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function queue(name: string, fifo = false, attributes: Record<string, string> = {}): Promise<string> {
  return (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: fifo ? `${name}.fifo` : name,
        Attributes: { ...attributes, ...(fifo ? { FifoQueue: 'true' } : {}) },
      }),
    )
  ).QueueUrl!;
}

const send = (url: string, body: string, fifo = false) =>
  sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      ...(fifo ? { MessageGroupId: 'g', MessageDeduplicationId: body } : {}),
    }),
  );

/** A long poll's messages and how long it waited (ms). */
async function longPoll(url: string, waitSeconds = 10, visibilityTimeout?: number) {
  const started = performance.now();
  const out = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      WaitTimeSeconds: waitSeconds,
      MaxNumberOfMessages: 10,
      ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
    }),
  );
  return { bodies: (out.Messages ?? []).map((m) => m.Body), waited: performance.now() - started };
}

describe('the SQS stand-in wakes a waiting receive', () => {
  it('with no timer firing every few ms while nothing can change by itself', async () => {
    const url = await queue('idle');
    // Every short timer callback the stand-in sets (it runs in this process) while one receive waits on an idle
    // queue; timers set by other code in this worker (files share it) are left out.
    let fired = 0;
    const short = (ms?: number) => (ms ?? 0) < 1_000 && /[\\/]fauxqs[\\/]/.test(new Error().stack ?? '');
    const count =
      <A extends unknown[]>(callback: (...args: A) => void) =>
      (...args: A) => {
        fired++;
        callback(...args);
      };
    const realInterval = globalThis.setInterval;
    const realTimeout = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((callback: () => void, ms?: number) =>
      realInterval(short(ms) ? count(callback) : callback, ms)) as typeof setInterval);
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) =>
      realTimeout(short(ms) ? count(callback) : callback, ms)) as typeof setTimeout);
    const waiting = longPoll(url, 2);
    await new Promise((resolve) => realTimeout(resolve, 200));
    const before = fired;
    await new Promise((resolve) => realTimeout(resolve, 1_000));
    const during = fired - before;
    vi.restoreAllMocks();
    expect((await waiting).bodies).toEqual([]);
    // A 20 ms check fires ~50 times a second.
    expect(during).toBeLessThan(5);
  });

  it('on a send, at once', async () => {
    const url = await queue('sent');
    const waiting = longPoll(url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await send(url, 'now');
    const got = await waiting;
    expect(got.bodies).toEqual(['now']);
    expect(got.waited).toBeLessThan(5_000);
  });

  for (const fifo of [false, true]) {
    const kind = fifo ? 'FIFO' : 'standard';
    it(`when a delayed message is ready, not at the end of its wait (${kind})`, async () => {
      const url = await queue(`delayed-${kind}`, fifo, { DelaySeconds: '1' });
      await send(url, 'late', fifo);
      const got = await longPoll(url);
      expect(got.bodies).toEqual(['late']);
      expect(got.waited).toBeLessThan(6_000);
    });

    it(`when a message's visibility ends, not at the end of its wait (${kind})`, async () => {
      const url = await queue(`visibility-${kind}`, fifo);
      await send(url, 'again', fifo);
      // Taken for 1 s and not deleted (a failed batch): a receive waiting meanwhile gets it back when that ends.
      expect((await longPoll(url, 1, 1)).bodies).toEqual(['again']);
      const back = await longPoll(url, 10);
      expect(back.bodies).toEqual(['again']);
      expect(back.waited).toBeLessThan(6_000);
    });
  }

  it('when a visibility is changed to end sooner', async () => {
    const url = await queue('shortened');
    await send(url, 'soon');
    const taken = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 60 }));
    const waiting = longPoll(url, 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url,
        ReceiptHandle: taken.Messages![0]!.ReceiptHandle!,
        VisibilityTimeout: 1,
      }),
    );
    const got = await waiting;
    expect(got.bodies).toEqual(['soon']);
    expect(got.waited).toBeLessThan(6_000);
  });
});
