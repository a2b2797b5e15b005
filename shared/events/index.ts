/**
 * The event vocabulary every producer and the webhook pipeline share (docs/reference/events.md): the envelope a
 * webhook receives, the event types and their catalog, what the `events` queue carries, the publisher producers call,
 * and the outbox that makes a state change and its event one write (docs/durability.md), with its sweep. Delivery
 * machinery (fan-out, attempts, retries) is the webhooks area's, not this one's. The only way into the area from
 * outside it.
 */
export { newEventId, type EventEnvelope } from './envelope.ts';
export {
  NOTICE_EVENT_TYPES,
  REPORTABLE_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './event-types.ts';
export { checkEventData, envelopeSchemaOf, EVENT_CATALOG, exampleEnvelopeOf } from './event-catalog.ts';
export {
  eventMessageSchema,
  messageGroupIdOf,
  orderingKeyOf,
  payloadBodyFields,
  type EventMessage,
} from './event-message.ts';
export type { EventPublisher, EventQueue, PayloadStore } from './ports.ts';
export { eventIdFor, markOf, messageOfMark, type OutboxMark, type PreparedEvent } from './outbox.ts';
export { makeEventPublisher } from './publish-event.ts';
export { makeSweepUnpublishedEvents } from './sweep-unpublished.ts';
export {
  clearOutboxMark,
  DynamoUnpublishedEvents,
  marksOf,
  outboxItemAttributes,
  outboxUpdate,
} from './adapters/dynamo-outbox.ts';
export { SqsEventQueue } from './adapters/sqs-event-queue.ts';
export { eventsSettings } from './settings.ts';
export { wireEventSweeper } from './wiring.ts';
