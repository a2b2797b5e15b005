import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulators, type Emulators } from '#local/emulators.ts';
import { startPoller } from '#local/poller.ts';

let emu: Emulators;
let sqs: SQSClient;
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-poller-'));
beforeAll(async () => {
  emu = await startEmulators(dataDir);
  sqs = new SQSClient({
    region: emu.region,
    endpoint: emu.awsEndpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
});
afterAll(async () => {
  sqs?.destroy();
  await emu?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function queueWithDlq(name: string) {
  const dlq = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  const url = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: '1',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
        },
      }),
    )
  ).QueueUrl!;
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  return { url, arn, dlq };
}

const until = async (check: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
};

describe('local SQS poller (Lambda event source mapping semantics)', () => {
  it('deletes what succeeded, redelivers what failed, and dead-letters after maxReceiveCount', async () => {
    const q = await queueWithDlq('poller-test');
    const seen: { body: string; receiveCount: string }[] = [];
    const poller = startPoller({
      sqs,
      queueUrl: q.url,
      queueArn: q.arn,
      region: emu.region,
      worker: {
        fn: 'test',
        queue: 'events',
        batchSize: 10,
        batchWindowSeconds: 0,
        timeoutSeconds: 5,
        memoryMb: 128,
        maxConcurrency: 1,
      },
      handler: async (event: SQSEvent) => {
        for (const r of event.Records) {
          expect(r.eventSource).toBe('aws:sqs');
          expect(r.eventSourceARN).toBe(q.arn);
          seen.push({ body: r.body, receiveCount: r.attributes.ApproximateReceiveCount });
        }
        return {
          batchItemFailures: event.Records.filter((r) => r.body.startsWith('fail')).map((r) => ({
            itemIdentifier: r.messageId,
          })),
        };
      },
    });
    for (const body of ['ok-1', 'ok-2', 'fail-1'])
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: body }));
    await until(() => seen.filter((s) => s.body === 'fail-1').length >= 2, 8_000);
    await new Promise((r) => setTimeout(r, 1_500));
    await poller.stop();

    expect(seen.filter((s) => s.body === 'ok-1')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'ok-2')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'fail-1').map((s) => s.receiveCount)).toEqual(['1', '2']);
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.dlq, WaitTimeSeconds: 2 }));
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['fail-1']);
  });
});

describe('batches larger than one receive', () => {
  it('gathers up to batchSize messages from several receives within the window, and deletes them all', async () => {
    // Visibility longer than the batch window, as on the real queues (the other test uses 1 s to see redeliveries).
    const url = (
      await sqs.send(new CreateQueueCommand({ QueueName: 'poller-big-batch', Attributes: { VisibilityTimeout: '30' } }))
    ).QueueUrl!;
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
      .Attributes!.QueueArn!;
    const q = { url, arn };
    for (let i = 0; i < 25; i++) await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: `m-${i}` }));
    const batches: number[] = [];
    const poller = startPoller({
      sqs,
      queueUrl: q.url,
      queueArn: q.arn,
      region: emu.region,
      worker: {
        fn: 'test',
        queue: 'events',
        batchSize: 20,
        batchWindowSeconds: 2,
        timeoutSeconds: 5,
        memoryMb: 128,
        maxConcurrency: 1,
      },
      handler: async (event: SQSEvent) => {
        batches.push(event.Records.length);
        return { batchItemFailures: [] };
      },
    });
    await until(() => batches.reduce((n, b) => n + b, 0) >= 25, 10_000);
    await new Promise((r) => setTimeout(r, 1_500)); // nothing comes back: all 25 were deleted
    await poller.stop();
    expect(batches[0]).toBe(20);
    expect(batches.reduce((n, b) => n + b, 0)).toBe(25);
  });
});
