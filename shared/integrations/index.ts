/** Integrations: webhooks and custom integrations of a project: their records, secrets and management. */
export {
  type CustomIntegration,
  type Integration,
  type IntegrationStore,
  integrationView,
  liveSigningSecrets,
  MAX_WEBHOOK_RATE_PER_SECOND,
  PREVIOUS_SECRET_GRACE_MS,
  type WebhookIntegration,
  type WebhookScope,
  type WebhookTarget,
} from './integration.ts';
export {
  type CreateIntegrationInput,
  generateSigningSecret,
  type IntegrationDeps,
  type IntegrationUseCases,
  makeIntegrationUseCases,
  type PatchWebhookInput,
} from './manage-integrations.ts';
