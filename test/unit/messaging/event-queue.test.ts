import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { makeBatchingEventQueue } from '#functions/send/event-queue.ts';
import { makeEventPublisher } from '#shared/webhooks/publish.ts';
import { eventMessageSchema } from '#shared/webhooks/model.ts';
import type { PublishEventInput } from '#shared/webhooks/events.ts';

/** A stand-in SQS client: records each call's message bodies; answers after `delayMs`; can refuse entries. */
function fakeSqs(options: { delayMs?: number; failIds?: (bodies: string[]) => number[]; throwOnCall?: number } = {}) {
  const calls: string[][] = [];
  const client = {
    async send(command: unknown) {
      const index = calls.length;
      if (command instanceof SendMessageCommand) calls.push([command.input.MessageBody!]);
      else if (command instanceof SendMessageBatchCommand) calls.push(command.input.Entries!.map((e) => e.MessageBody!));
      else throw new Error('unexpected command');
      await new Promise((r) => setTimeout(r, options.delayMs ?? 5));
      if (options.throwOnCall === index) throw new Error('queue unreachable');
      const failed = options.failIds?.(calls[index]!) ?? [];
      return { Failed: failed.map((i) => ({ Id: String(i), Code: 'InternalError', SenderFault: false })), Successful: [] };
    },
  };
  return { client: client as unknown as SQSClient, calls };
}

const noPayloads = { put: async () => { throw new Error('no large bodies here'); }, get: async () => '' };
const publisherOn = (client: SQSClient) => makeEventPublisher({ queue: makeBatchingEventQueue(client, 'https://queue'), payloads: noPayloads });

const input = (n: number): PublishEventInput => ({
  type: 'message.sent',
  projectId: 'prj_1',
  companyId: 7,
  channel: { id: 'ch_1', type: 'sms', address: '+5511999990000' },
  data: { n },
});

describe('batching events queue under the webhooks publisher', () => {
  it('sends a lone event at once, and batches the ones that arrive while a call is in flight', async () => {
    const sqs = fakeSqs();
    const publisher = publisherOn(sqs.client);
    const envelopes = await Promise.all(Array.from({ length: 13 }, (_, i) => publisher.publish(input(i))));
    expect(sqs.calls.map((c) => c.length)).toEqual([1, 10, 2]);
    const sent = sqs.calls.flat().map((b) => eventMessageSchema.parse(JSON.parse(b)));
    expect(sent.map((m) => JSON.parse(m.body!).data.n)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(sent.map((m) => m.eventId)).toEqual(envelopes.map((e) => e.id));
    expect(new Set(envelopes.map((e) => e.id)).size).toBe(13);
  });

  it('rejects exactly the events SQS refused, and every event of a call that failed', async () => {
    const refusing = fakeSqs({ failIds: (bodies) => (bodies.length > 1 ? [1] : []) });
    const publisher = publisherOn(refusing.client);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => publisher.publish(input(i))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);

    const down = fakeSqs({ throwOnCall: 1 });
    const publisher2 = publisherOn(down.client);
    const outcomes2 = await Promise.allSettled(Array.from({ length: 3 }, (_, i) => publisher2.publish(input(i))));
    expect(outcomes2.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    // The publisher keeps working after a failed call.
    await expect(publisher2.publish(input(9))).resolves.toMatchObject({ type: 'message.sent' });
  });
});
