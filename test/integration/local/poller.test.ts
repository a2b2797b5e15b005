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
import { eventually } from '#test/support/eventually.ts';

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

/** Messages in the queue, visible or in flight: 0 once every one was deleted. */
async function messagesIn(url: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

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
    // fail-1 reaches the dead-letter queue on its third receive, a visibility timeout (1 s) after its second: by then
    // ok-1 and ok-2 would have come back had they not been deleted.
    const dead = await eventually(
      async () => {
        const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: q.dlq, WaitTimeSeconds: 1 }));
        return out.Messages?.length ? out.Messages : undefined;
      },
      15_000,
      'fail-1 in the dead-letter queue',
    );
    await poller.stop();

    expect(dead.map((m) => m.Body)).toEqual(['fail-1']);
    expect(seen.filter((s) => s.body === 'ok-1')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'ok-2')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'fail-1').map((s) => s.receiveCount)).toEqual(['1', '2']);
    expect(await messagesIn(q.url)).toBe(0);
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
    await eventually(async () => batches.reduce((n, b) => n + b, 0) >= 25, 10_000, 'the 25 messages handled');
    // Deleted, not left to come back after their visibility timeout (30 s, longer than this test).
    await eventually(async () => (await messagesIn(q.url)) === 0, 10_000, 'the queue emptied');
    await poller.stop();
    expect(batches[0]).toBe(20);
    expect(batches.reduce((n, b) => n + b, 0)).toBe(25);
  });
});
