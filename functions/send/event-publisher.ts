import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import type { Config } from '#shared/config/config.ts';
import { buildEnvelope, newEventId, type EventEnvelope, type EventPublisher } from '#shared/webhooks/events.ts';
import type { EventMessage } from '#shared/webhooks/model.ts';

/** SQS takes at most 10 messages per SendMessageBatch. */
const MAX_BATCH = 10;

interface Pending {
  body: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Puts the send endpoint's events on the `events` queue in the fan-out's message format (version 1, the envelope
 * serialized once in `body`: the exact bytes that are signed and POSTed). The send endpoint keeps its events small
 * (payloads are cut to 32 KB), so they always travel inline.
 *
 * Opportunistic batching: with no call in flight an event is sent at once (one request at a time, as on Lambda,
 * pays nothing extra); events that arrive while a call is in flight leave together in the next SendMessageBatch.
 * Under load in one process (the local runner) that is one SQS call per up to 10 sends instead of one per send.
 * Each `publish` still resolves only once its own event is durably queued.
 */
export function makeQueueEventPublisher(sqs: SQSClient, queueUrl: string): EventPublisher {
  const waiting: Pending[] = [];
  let inFlight = false;

  async function drain(): Promise<void> {
    inFlight = true;
    try {
      while (waiting.length) {
        const batch = waiting.splice(0, MAX_BATCH);
        try {
          if (batch.length === 1) {
            await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: batch[0]!.body }));
            batch[0]!.resolve();
            continue;
          }
          const out = await sqs.send(
            new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((p, i) => ({ Id: String(i), MessageBody: p.body })) }),
          );
          const failed = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
          batch.forEach((p, i) => {
            const failure = failed.get(String(i));
            if (failure) p.reject(new Error(`SQS refused the event: ${failure.Code ?? 'unknown'}`));
            else p.resolve();
          });
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      inFlight = false;
    }
  }

  return {
    async publish(input) {
      const at = new Date();
      const envelope: EventEnvelope = buildEnvelope(input, newEventId(at.getTime()), at);
      const message: EventMessage = {
        v: 1,
        eventId: envelope.id,
        eventType: envelope.type,
        projectId: envelope.projectId,
        channelId: envelope.channel?.id ?? null,
        ...(input.onlyIntegrationId ? { onlyIntegrationId: input.onlyIntegrationId } : {}),
        acceptedAt: at.getTime(),
        body: JSON.stringify(envelope),
      };
      await new Promise<void>((resolve, reject) => {
        waiting.push({ body: JSON.stringify(message), resolve, reject });
        if (!inFlight) void drain();
      });
      return envelope;
    },
  };
}

/** The publisher on the deployment's `events` queue. */
export function eventPublisherFromConfig(cfg: Config): EventPublisher {
  if (!cfg.QUEUE_URL_EVENTS) throw new Error('Invalid configuration: QUEUE_URL_EVENTS is required');
  return makeQueueEventPublisher(sqsClient(cfg), cfg.QUEUE_URL_EVENTS);
}
