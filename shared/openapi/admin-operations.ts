import type { RouteDoc } from '../contract/api-docs.ts';
import * as s from './schemas.ts';

/**
 * Documentation of every management API route, keyed by `METHOD path` as the route declares it. The request body
 * schema is never repeated here: the document takes it from the route's declaration. A route without an entry is
 * reported as undocumented (and fails a test).
 */
export const ADMIN_ROUTE_DOCS: Record<string, RouteDoc> = {
  'POST /projects': {
    operationId: 'createProject',
    summary: 'Create a project',
    description:
      'A project holds channels, integrations, bots and one API token. `monthlyBotCredits` is the monthly bot credit allowance (default 0). ' +
      "`limits` (`sendsPerSecond`, `eventsPerSecond`) caps the project's sends and reported events a second; a limit left out or null is the deployment's default (100 and 1,000).",
    tags: ['Projects'],
    responses: { 201: { description: 'The project.', body: s.project } },
  },
  'GET /projects': {
    operationId: 'listProjects',
    summary: 'List projects, newest first',
    description:
      'Every project of the deployment, newest first, a page at a time (`limit`, then `cursor` = `nextCursor`).',
    tags: ['Projects'],
    responses: { 200: { description: 'A page of projects.', body: s.projectPage } },
  },
  'GET /projects/{projectId}/api-token': {
    operationId: 'getApiTokenStatus',
    summary: 'Whether the project has an API token',
    description: 'Never returns the token: it was shown once, when created.',
    tags: ['Projects'],
    responses: { 200: { description: 'The token state.', body: s.apiTokenState } },
  },
  'GET /projects/{projectId}': {
    operationId: 'getProject',
    summary: 'Get a project',
    description: 'The project by id; 404 `NOT_FOUND` when there is none.',
    tags: ['Projects'],
    responses: { 200: { description: 'The project.', body: s.project } },
  },
  'PATCH /projects/{projectId}': {
    operationId: 'updateProject',
    summary: "Change a project's name, contact email or limits",
    description:
      '`name`, `contactEmail` (where the webhook notices `webhook.failing` and `webhook.disabled` are mailed; `null` ' +
      "removes it), `limits` (each limit sent is set, `null` gives it back to the deployment's default, `limits: null` " +
      'gives all of them back; a change reaches every request within 10 seconds); a field not sent is unchanged.',
    tags: ['Projects'],
    responses: { 200: { description: 'The project after the change.', body: s.project } },
  },
  'POST /projects/{projectId}/api-token': {
    operationId: 'createApiToken',
    summary: 'Create or replace the project API token (shown once)',
    description:
      'Issues a new `sbk_` token for the Bots API and the other public APIs; any earlier token stops working at once.',
    tags: ['Projects'],
    responses: { 201: { description: 'The token, shown once.', body: s.shownOnceToken } },
    errors: { 409: ['CONFLICT'] },
  },
  'DELETE /projects/{projectId}/api-token': {
    operationId: 'revokeApiToken',
    summary: 'Revoke the project API token',
    description: 'The token answers 401 `ERR_API_TOKEN_INVALID` from the next request on.',
    tags: ['Projects'],
    responses: { 204: { description: 'Revoked (or there was none).' } },
  },
  'GET /projects/{projectId}/bot-credits': {
    operationId: 'getBotCredits',
    summary: 'Bot credits left this month',
    description: "The month's bot credits left (`disponivel`) and the month (`MM/YYYY`, UTC).",
    tags: ['Projects'],
    responses: { 200: { description: "The month's balance.", body: s.botCredits } },
  },
  'POST /projects/{projectId}/bot-credits': {
    operationId: 'grantBotCredits',
    summary: 'Grant bot credits for the current month',
    description: "Adds `amount` credits to the current month's balance only; the monthly allowance is unchanged.",
    tags: ['Projects'],
    responses: { 200: { description: "The month's balance after the grant.", body: s.botCredits } },
  },
  'POST /projects/{projectId}/integrations': {
    operationId: 'createIntegration',
    summary: 'Create an integration (webhook, custom or poller)',
    description:
      "A webhook pushes the project's events to `url` (scope `general`: every channel; `channel`: one channel), or " +
      'to a `destination` in your AWS account (an SQS queue, SNS topic, EventBridge bus, Kinesis stream or S3 ' +
      "bucket) through `roleArn`, assumed with the project's `externalId` when delivering: a malformed ARN, queue " +
      'URL or bucket name is 400, a role that cannot be assumed shows as failed attempts naming the error. ' +
      'A custom integration gets a `sbc_` token bound to one channel for `POST /api/integration/generic`; a ' +
      '`poller` an `sbp_` token for `GET /api/integration/events`. ' +
      "The answer carries a `v1` webhook's `signingSecret` or the custom `token`, shown once; a `v1a` webhook's " +
      "`publicKey` is on the integration itself. `ordering` (`conversation`: one conversation's events in order), " +
      '`signature` (`v1` or `v1a`) and `filter` (conditions an event must meet) are optional.',
    tags: ['Integrations'],
    responses: { 201: { description: 'The integration with its secret, shown once.', body: s.createdIntegration } },
    errors: { 404: ['CHANNEL_NOT_FOUND'], 409: ['CONFLICT'] },
  },
  'GET /projects/{projectId}/integrations': {
    operationId: 'listIntegrations',
    summary: 'List integrations',
    description: "The project's webhooks and custom integrations, a page at a time, without secrets.",
    tags: ['Integrations'],
    responses: { 200: { description: 'A page of integrations, without secrets.', body: s.integrationPage } },
  },
  'GET /projects/{projectId}/integrations/{integrationId}': {
    operationId: 'getIntegration',
    summary: 'Get an integration',
    description: 'The integration by id, without secrets.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The integration, without secrets.', body: s.integration } },
  },
  'PATCH /projects/{projectId}/integrations/{integrationId}': {
    operationId: 'updateIntegration',
    summary: 'Change a webhook (url, destination, bearer token, event types, ordering, signature, filter, enabled)',
    description:
      'Pollers: `eventTypes`, `filter`. Webhooks: `url`, `destination` (a move to `http` needs a `url`), `bearerToken`, `eventTypes`, `rateLimitPerSecond`, `ordering`, `signature`, `filter`, ' +
      '`enabled`; a field not sent is unchanged, `null` clears `bearerToken`, `eventTypes`, `rateLimitPerSecond` and ' +
      '`filter`. A switch of `signature` keeps the previous scheme signing for 24 h beside the new one; a switch to ' +
      '`v1` answers with a new `signingSecret`, shown once.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The integration after the change.', body: s.updatedIntegration } },
    errors: { 409: ['CONFLICT'] },
  },
  'DELETE /projects/{projectId}/integrations/{integrationId}': {
    operationId: 'deleteIntegration',
    summary: 'Delete an integration',
    description: "A custom integration's token stops working at once.",
    tags: ['Integrations'],
    responses: { 204: { description: 'Deleted.' } },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/rotate-token': {
    operationId: 'rotateIntegrationToken',
    summary: "Rotate a custom integration's or a poller's token (shown once)",
    description: 'The previous token answers 401 `ERR_NO_PERMISSION` at once.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The new token, shown once.', body: s.shownOnceToken } },
    // A webhook has no token: 400.
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook's signing secret or key",
    description:
      'For 24 h deliveries carry signatures under both the new and the previous secret (`v1`) or key (`v1a`), so ' +
      'receivers can switch without losing events. `v1`: the new `signingSecret`, shown once; `v1a`: the new ' +
      '`publicKey`.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The new secret (shown once) or public key.', body: s.signingSecret } },
    // A custom integration has no signing secret: 400.
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/test': {
    operationId: 'sendTestEvent',
    summary: 'Send a test event to one webhook',
    description: 'Queues a `webhook.test` event delivered to this webhook only; follow it in the delivery log.',
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.eventAccepted } },
    // A custom integration has no deliveries: 400 (the same for the delivery log and retries).
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'GET /projects/{projectId}/integrations/{integrationId}/deliveries': {
    operationId: 'listDeliveries',
    summary: "A webhook's delivery log",
    description: 'Newest first; every attempt with its time, status code, duration and error.',
    tags: ['Webhook deliveries'],
    responses: { 200: { description: 'Deliveries, newest first.', body: s.deliveryPage } },
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/deliveries/{deliveryId}/retry': {
    operationId: 'retryDelivery',
    summary: 'Retry a delivery now',
    description: 'One more attempt, appended to the same delivery (same `webhook-id`).',
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.retryAccepted } },
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/recover': {
    operationId: 'recoverDeliveries',
    summary: 'Retry every failed delivery of a webhook in a window of event time',
    description:
      'Each failed delivery whose event `timestamp` is in [since, until) is retried: the same delivery, body and ' +
      '`webhook-id`, one attempt appended. Two calls at once never re-queue one delivery twice. `since` at most 30 ' +
      'days ago.',
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.recoverAccepted } },
    errors: { 409: ['CONFLICT'] },
  },
  'GET /projects/{projectId}/integrations/{integrationId}/health': {
    operationId: 'getWebhookHealth',
    summary: "A webhook's last 24 hours, per hour",
    description:
      'Attempts succeeded and failed and the median attempt latency per hour, from counters each attempt updates ' +
      '(the delivery log is not read).',
    tags: ['Webhook deliveries'],
    responses: { 200: { description: 'The last 24 hours, oldest first.', body: s.webhookHealth } },
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'GET /projects/{projectId}/bots/{botId}/knowledge': {
    operationId: 'listKnowledgeFiles',
    summary: "A bot's knowledge files and their status, a page at a time",
    description:
      'Files by name (byte order of the UTF-8 name) with their ingestion status (`processing`, `ready`, `failed`), ' +
      'a page at a time. A bot holds any number of files.',
    tags: ['Bots'],
    responses: { 200: { description: 'A page of files, by name.', body: s.knowledgeFilePage } },
  },
  'PUT /projects/{projectId}/bots/{botId}/knowledge/{fileName}': {
    operationId: 'uploadKnowledgeFile',
    summary: 'Upload a knowledge file',
    description:
      'Raw bytes, 25 MB at most. The same name replaces the file. Ingestion runs in the background: poll the list until `ready`.',
    tags: ['Bots'],
    rawContentTypes: ['text/markdown', 'text/plain', 'text/html', 'application/pdf'],
    responses: { 202: { description: 'Accepted; ingestion is running.', body: s.knowledgeUploadAccepted } },
    // 400 VALIDATION_ERROR: an empty file or a bad file name.
    errors: {
      400: ['FILE_TOO_LARGE', 'VALIDATION_ERROR'],
      415: ['UNSUPPORTED_MEDIA_TYPE'],
      503: ['SERVICE_UNAVAILABLE'],
    },
  },
  'POST /projects/{projectId}/bots/{botId}/knowledge/{fileName}/upload': {
    operationId: 'createKnowledgeUploadUrl',
    summary: 'Ask for a browser upload URL',
    description:
      'A presigned S3 POST for files past the 6 MB a request can carry: post every `fields` entry, then `file`, as ' +
      'multipart/form-data to `uploadUrl` within 15 minutes (1 byte to 25 MB, the declared type). The file is ' +
      '`processing` from now and is ingested when the object lands; the same name replaces.',
    tags: ['Bots'],
    responses: { 201: { description: 'The upload form.', body: s.knowledgeUploadUrl } },
    errors: { 415: ['UNSUPPORTED_MEDIA_TYPE'], 503: ['SERVICE_UNAVAILABLE'] },
  },
  'DELETE /projects/{projectId}/bots/{botId}/knowledge/{fileName}': {
    operationId: 'deleteKnowledgeFile',
    summary: 'Delete a knowledge file',
    description:
      'Its excerpts leave search at once (before the answer). An upload of the same name that lands meanwhile is newer and proceeds.',
    tags: ['Bots'],
    responses: { 204: { description: 'Deleted.' } },
  },
};
