/**
 * The event vocabulary every producer and the webhook pipeline share: the envelope a webhook
 * receives, the event types and their catalog, what the `events` queue carries, and the publisher producers call.
 * Delivery machinery (fan-out, attempts, retries) is the webhooks area's, not this one's.
 */
export {
  buildEnvelope,
  newEventId,
  type EventChannel,
  type EventEnvelope,
  type EventIdentity,
  type EventPublisher,
  type PublishEventInput,
} from './envelope.ts';
export {
  NOTICE_EVENT_TYPES,
  REPORTABLE_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './event-types.ts';
export {
  checkEventData,
  envelopeSchemaOf,
  EVENT_CATALOG,
  eventEnvelopeFields,
  exampleEnvelopeOf,
  type EventCatalogEntry,
} from './event-catalog.ts';
export {
  eventMessageSchema,
  LARGE_PAYLOAD_BYTES,
  messageGroupIdOf,
  orderingKeyOf,
  payloadBodyFields,
  payloadKey,
  type EventMessage,
} from './event-message.ts';
export type { EventQueue, PayloadStore } from './ports.ts';
export { eventIdFor, markOf, messageOfMark, type OutboxMark, type PreparedEvent } from './outbox.ts';
export { makeEventPublisher } from './publish-event.ts';
export {
  makeSweepUnpublishedEvents,
  type StaleItem,
  type StalePage,
  type UnpublishedEvents,
} from './sweep-unpublished.ts';
