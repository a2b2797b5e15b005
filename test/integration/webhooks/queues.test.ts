import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulators, type Emulators } from '#local/emulators.ts';
import { type EventMessage, SqsEventQueue } from '#shared/events/index.ts';
import { SqsDeliveryQueue } from '#shared/webhooks/adapters/sqs-delivery-queue.ts';
import type { DeliveryJob } from '#shared/webhooks/model.ts';

let emulators: Emulators;
let sqs: SQSClient;
let calls: string[];
const dir = mkdtempSync(join(tmpdir(), 'sb-wh-queues-'));

beforeAll(async () => {
  emulators = await startEmulators(dir);
  sqs = new SQSClient({
    region: emulators.region,
    endpoint: emulators.awsEndpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  calls = [];
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
});
afterAll(async () => {
  sqs?.destroy();
  await emulators?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function drain(queueUrl: string, expected: number) {
  const bodies: string[] = [];
  const deadline = Date.now() + 10_000;
  while (bodies.length < expected && Date.now() < deadline) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 60,
      }),
    );
    const messages = out.Messages ?? [];
    bodies.push(...messages.map((m) => m.Body!));
    // Deleted as a worker does: on the FIFO events queue a group's next message is received only after that.
    if (messages.length)
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
  }
  return bodies;
}

const event = (n: number): EventMessage => ({
  v: 1,
  eventId: `evt_${n}`,
  eventType: 'message.sent',
  projectId: 'prj_1',
  channelId: 'ch_1',
  acceptedAt: n,
  body: '{}',
});

describe('SqsEventQueue', () => {
  it('sends events published at the same time in few batch calls, none lost', async () => {
    const queue = new SqsEventQueue(sqs, emulators.queueUrls.events, 1);
    calls.length = 0;
    await Promise.all(Array.from({ length: 25 }, (_, i) => queue.send(event(i))));
    const sends = calls.filter((c) => c === 'SendMessageBatchCommand').length;
    expect(sends).toBeGreaterThanOrEqual(3);
    expect(sends).toBeLessThan(25);
    // One channel, no conversation: one FIFO group, received in the order the events were published.
    const bodies = await drain(emulators.queueUrls.events, 25);
    expect(bodies.map((b) => JSON.parse(b).eventId)).toEqual(Array.from({ length: 25 }, (_, i) => `evt_${i}`));
  });
});

describe('SqsDeliveryQueue', () => {
  const job = (n: number, body = '{}'): DeliveryJob => ({
    v: 1,
    projectId: 'prj_1',
    integrationId: 'int_1',
    deliveryId: `dlv_${n}`,
    eventId: `evt_${n}`,
    eventType: 'message.sent',
    acceptedAt: 1,
    body,
    attemptsBefore: 0,
    manual: false,
    deferrals: 0,
  });

  it('splits batches at 10 jobs and at the size limit', async () => {
    const queue = new SqsDeliveryQueue(sqs, emulators.queueUrls.deliveries);
    calls.length = 0;
    const big = 'x'.repeat(100 * 1024);
    const failed = await queue.enqueue([
      ...Array.from({ length: 12 }, (_, i) => ({ job: job(i) })),
      ...[12, 13, 14].map((i) => ({ job: job(i, big) })),
    ]);
    expect(failed.size).toBe(0);
    expect(calls.filter((c) => c === 'SendMessageBatchCommand').length).toBe(3);
    expect((await drain(emulators.queueUrls.deliveries, 15)).length).toBe(15);
  });

  it('postpones received messages, and a delayed job stays hidden until due', async () => {
    const queue = new SqsDeliveryQueue(sqs, emulators.queueUrls.deliveries);
    await queue.enqueue([{ job: job(100) }, { job: job(101), delaySeconds: 2 }]);
    const first = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: emulators.queueUrls.deliveries,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    expect(first.Messages!.map((m) => JSON.parse(m.Body!).deliveryId)).toEqual(['dlv_100']);
    expect((await queue.postpone([{ receiptHandle: first.Messages![0]!.ReceiptHandle!, seconds: 0.2 }])).size).toBe(0);
    const later = await drain(emulators.queueUrls.deliveries, 2);
    expect(later.map((b) => JSON.parse(b).deliveryId).sort()).toEqual(['dlv_100', 'dlv_101']);
  });
});
