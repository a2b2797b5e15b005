import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulators } from '#local/emulators.ts';
import { queues } from '#shared/contract/queues.ts';

/** A data folder whose queues were made with other settings (an earlier version's): started by this one. */
const dataDir = mkdtempSync(join(tmpdir(), 'sb-queue-upgrade-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const client = (endpoint: string, region: string) =>
  new SQSClient({ region, endpoint, credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });

describe('local queues from an earlier version', () => {
  it('start, and take the visibility timeout and redrive policy this version declares', async () => {
    const first = await startEmulators(dataDir);
    const sqs = client(first.awsEndpoint, first.region);
    const url = first.queueUrls.events;
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    const policy = JSON.parse(Attributes!.RedrivePolicy!) as { deadLetterTargetArn: string };
    // As an earlier version left them: fewer receives before the dead-letter queue, a shorter visibility.
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: url,
        Attributes: {
          VisibilityTimeout: '30',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: policy.deadLetterTargetArn, maxReceiveCount: 5 }),
        },
      }),
    );
    sqs.destroy();
    await first.stop();

    const again = await startEmulators(dataDir);
    const sqs2 = client(again.awsEndpoint, again.region);
    try {
      expect(again.queueUrls.events).toBe(url);
      const now = (await sqs2.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] })))
        .Attributes!;
      expect(now.VisibilityTimeout).toBe(String(queues.events.visibilityTimeoutSeconds));
      expect(JSON.parse(now.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: policy.deadLetterTargetArn,
        maxReceiveCount: queues.events.maxReceiveCount,
      });
      expect(now.FifoQueue).toBe('true');
    } finally {
      sqs2.destroy();
      await again.stop();
    }
  });
});
