import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import twilio from 'twilio';
import { afterAll, describe, expect, it } from 'vitest';
import { queueWorkers } from '#shared/contract/workers.ts';
import { recordDynamoCalls } from '#test/support/dynamo-calls.ts';
import { startTestService, type TestService } from '#test/support/service.ts';
import { consistently, eventually } from '#test/support/eventually.ts';
import { startReceiver } from './webhooks-support.ts';

/**
 * What a provider's request costs before its 2xx (one GetItem, one SQS send), and that a report accepted just
 * before the service stops is turned into its event, once, after a restart.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-inbound-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function queuedInbound(svc: TestService): Promise<number> {
  const sqs = new SQSClient({
    region: svc.emulators.region,
    endpoint: svc.emulators.awsEndpoint,
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: svc.emulators.queueUrls.inboundOrdered,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  sqs.destroy();
  return (
    Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

describe('inbound reports: cost before the 2xx, and durability', () => {
  it('one GetItem and one queued report per accepted request; a refused one queues nothing; after a restart the event arrives once', async () => {
    const receiver = await startReceiver();
    // First run: no inbound workers, so the reports stay queued as if the service died right after answering.
    const first = await startTestService({
      dataDir,
      queueWorkerFns: queueWorkers.filter((w) => !w.fn.startsWith('inbound')).map((w) => w.fn),
    });
    const { projectId } = await first.newProject();
    await first.admin('POST', `/projects/${projectId}/integrations`, {
      product: 'webhook',
      scope: 'general',
      url: receiver.url,
      eventTypes: ['message.received'],
    });
    const channel = (
      await first.admin('POST', `/projects/${projectId}/channels`, {
        type: 'sms',
        name: 'Twilio',
        address: '+15005550006',
        provider: { kind: 'twilio', accountSid: 'AC1', authToken: 'tok' },
      })
    ).body;
    const post = (baseUrl: string, signature?: string) => {
      const url = `${baseUrl}/inbound/twilio/${channel.channelId}`;
      const params = {
        AccountSid: 'AC1',
        MessageSid: 'SMdurable',
        From: '+5511988887777',
        To: '+15005550006',
        Body: 'hi',
        NumMedia: '0',
      };
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature('tok', url, params),
        },
        body: new URLSearchParams(params).toString(),
      });
    };

    const dynamo = recordDynamoCalls(first);
    expect((await post(first.baseUrl, 'bm90IGl0')).status).toBe(403);
    expect(await queuedInbound(first)).toBe(0);
    dynamo.reset();
    expect((await post(first.baseUrl)).status).toBe(200);
    // The request's own item calls: a sweeper's Query on its own clock may land beside it (seen under a loaded run).
    expect(await dynamo.requestOps(1)).toEqual(['GetItem']);
    expect(await queuedInbound(first)).toBe(1);
    // Twilio retries (it got no answer in time, say): queued again, still one event in the end.
    expect((await post(first.baseUrl)).status).toBe(200);
    dynamo.stop();
    await first.stop();

    const second = await startTestService({ dataDir });
    try {
      await receiver.waitFor(1, 15_000);
      // Both queued reports handled (the queue is empty), and the retry never becomes a second event.
      await eventually(async () => (await queuedInbound(second)) === 0, 15_000, 'the inbound queue drained');
      await consistently(() => {
        expect(receiver.received.map((d) => [d.json.type, d.json.data.providerMessageId])).toEqual([
          ['message.received', 'SMdurable'],
        ]);
      }, 1000);
    } finally {
      await second.close();
      await receiver.close();
    }
  }, 90_000);
});
