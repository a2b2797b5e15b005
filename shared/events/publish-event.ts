import { createHash } from 'node:crypto';
import { buildEnvelope, newEventId, type EventIdentity, type PublishEventInput } from './envelope.ts';
import { eventIdFor, type PreparedEvent } from './outbox.ts';
import { LARGE_PAYLOAD_BYTES, payloadKey, type EventMessage } from './event-message.ts';
import type { EventPublisher, EventQueue, PayloadStore } from './ports.ts';

/** A producer's conversation id as the queue message carries it: as it is, or its digest when long. */
function conversationKeyOf(conversationId: string): string {
  return conversationId.length <= 256
    ? conversationId
    : `sha256:${createHash('sha256').update(conversationId).digest('base64url')}`;
}

/**
 * The EventPublisher: 1. give the event its id (fixed by the change when one is given) and timestamp, 2. serialize
 * the envelope once (these exact bytes are signed and POSTed to every webhook), 3. park a body over 200 KB in S3,
 * 4. put the event on the `events` queue. Nothing waits for delivery.
 */
export function makeEventPublisher(deps: {
  queue: EventQueue;
  payloads: PayloadStore;
  now?: () => Date;
}): EventPublisher {
  const now = deps.now ?? (() => new Date());

  async function prepare(input: PublishEventInput, identity?: EventIdentity): Promise<PreparedEvent> {
    const at = identity?.at ?? now();
    const id = identity ? eventIdFor(identity.key, at.getTime()) : newEventId(at.getTime());
    const envelope = buildEnvelope(input, id, at);
    const body = JSON.stringify(envelope);
    const message: EventMessage = {
      v: 1,
      eventId: envelope.id,
      eventType: envelope.type,
      projectId: envelope.projectId,
      channelId: envelope.channel?.id ?? null,
      acceptedAt: at.getTime(),
      ...(input.onlyIntegrationId ? { onlyIntegrationId: input.onlyIntegrationId } : {}),
      ...(input.exceptIntegrationId ? { exceptIntegrationId: input.exceptIntegrationId } : {}),
      ...(typeof input.data.conversationId === 'string'
        ? { conversationId: conversationKeyOf(input.data.conversationId) }
        : {}),
    };
    // Measured as it travels (escaped inside the message JSON), so the message stays under SQS's 256 KB.
    if (Buffer.byteLength(JSON.stringify(body)) > LARGE_PAYLOAD_BYTES) {
      const key = payloadKey(envelope.id);
      await deps.payloads.put(key, body);
      message.bodyRef = key;
    } else {
      message.body = body;
    }
    return { envelope, message };
  }

  return {
    prepare,
    send: (message) => deps.queue.send(message),
    async publish(input, identity) {
      const prepared = await prepare(input, identity);
      await deps.queue.send(prepared.message);
      return prepared.envelope;
    },
  };
}
