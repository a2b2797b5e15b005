/**
 * Webhooks: fan-out of events to webhooks, delivery attempts, retries, pacing, recovery, notices and health; their
 * routes with their docs, settings and wiring. The only way into the area from outside it.
 */
export { LIMIT_CACHE_MS } from './pacing.ts';
export { DEFAULT_RETRY_DELAYS_SECONDS, RETRY_JITTER } from './retry-schedule.ts';
export { signPayload, signPayloadEd25519 } from './signature.ts';
export { DynamoDeliveryStore } from './adapters/dynamo-delivery-store.ts';
export { migrateWebhookLayout } from './adapters/legacy-webhook-layout.ts';
export { webhookRouteDocs, webhookRoutes } from './api/admin-routes.ts';
export { delivery, deliveryPage, recoverAccepted, retryAccepted, webhookHealth } from './api/schemas.ts';
export { webhookSettings } from './settings.ts';
export { wireDeliverWorker, wireFanoutWorker, wireWebhookAdmin } from './wiring.ts';
