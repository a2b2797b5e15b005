/**
 * Integrations: a project's webhooks, custom integrations and pollers: their records and store, their secrets and
 * signing keys, their AWS destinations, their management API and its documentation. The only way into the area from
 * outside it.
 */
export { matchesFilter } from '../contract/webhook-filter.ts';
export { CachedWebhookLists } from './adapters/cached-webhook-lists.ts';
export { DynamoIntegrationStore, WEBHOOK_CHANGE_WINDOW_MS } from './adapters/dynamo-integration-store.ts';
export { integrationRouteDocs, integrationRoutes } from './api/admin-routes.ts';
export { createdIntegration, integration, integrationPage, signingSecret, updatedIntegration } from './api/schemas.ts';
export { type AwsDestination, parseArn, parseQueueUrl } from './destination.ts';
export {
  type IntegrationStore,
  MAX_WEBHOOK_RATE_PER_SECOND,
  type WebhookIntegration,
  type WebhookTarget,
} from './integration.ts';
export { makeIntegrationUseCases } from './manage-integrations.ts';
export { generateSigningKey, publicKeyOf, signingKeyObject } from './signing-keys.ts';
export { wireIntegrationAdmin } from './wiring.ts';
