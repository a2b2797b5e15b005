import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '#shared/adapters/sqs/clients.ts';
import type { Config } from '#shared/config/config.ts';
import { buildEnvelope, newEventId, type EventPublisher } from '#shared/webhooks/events.ts';
import type { EventMessage } from '#shared/webhooks/model.ts';

/**
 * Puts the send endpoint's events on the `events` queue in the fan-out's message format (version 1, the envelope
 * serialized once in `body`: the exact bytes that are signed and POSTed). The send endpoint keeps its events small
 * (payloads are cut to 32 KB), so they always travel inline.
 */
export function eventPublisherFromConfig(cfg: Config): EventPublisher {
  const queueUrl = cfg.QUEUE_URL_EVENTS;
  if (!queueUrl) throw new Error('Invalid configuration: QUEUE_URL_EVENTS is required');
  const sqs = sqsClient(cfg);
  return {
    async publish(input) {
      const at = new Date();
      const envelope = buildEnvelope(input, newEventId(at.getTime()), at);
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
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
      return envelope;
    },
  };
}
