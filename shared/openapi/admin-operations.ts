import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';
import type { RouteDoc } from './route-doc.ts';
import * as s from './schemas.ts';

/**
 * Documentation of every management API route, keyed by `METHOD path` as the route declares it. The request body
 * schema is never repeated here: the document takes it from the route's declaration. A route without an entry is
 * reported as undocumented (and fails a test).
 */
export const ADMIN_ROUTE_DOCS: Record<string, RouteDoc> = {
  'POST /projects': {
    summary: 'Create a project',
    tags: ['Projects'],
    responses: { 201: { description: 'The project.', body: s.project } },
  },
  'GET /projects': {
    summary: 'List projects, newest first',
    tags: ['Projects'],
    query: z.object({
      limit: withMeta(z.optional(z.number().check(z.int(), z.gte(1), z.lte(100))), {
        description: 'Page size (default 50).',
      }),
      cursor: withMeta(z.optional(z.string()), { description: '`nextCursor` of the previous page.' }),
    }),
    responses: { 200: { description: 'A page of projects.', body: s.projectPage } },
  },
  'GET /projects/{projectId}/api-token': {
    summary: 'Whether the project has an API token',
    description: 'Never returns the token: it was shown once, when created.',
    tags: ['Projects'],
    responses: { 200: { description: 'The token state.', body: s.apiTokenState } },
  },
  'GET /projects/{projectId}': {
    summary: 'Get a project',
    tags: ['Projects'],
    responses: { 200: { description: 'The project.', body: s.project } },
  },
  'POST /projects/{projectId}/api-token': {
    summary: 'Create or replace the project API token (shown once)',
    description:
      'Issues a new `sbk_` token for the Bots API and the other public APIs; any earlier token stops working at once.',
    tags: ['Projects'],
    responses: { 201: { description: 'The token, shown once.', body: s.shownOnceToken } },
    errors: { 409: ['CONFLICT'] },
  },
  'DELETE /projects/{projectId}/api-token': {
    summary: 'Revoke the project API token',
    description: 'The token answers 401 `ERR_API_TOKEN_INVALID` from the next request on.',
    tags: ['Projects'],
    responses: { 204: { description: 'Revoked (or there was none).' } },
  },
  'GET /projects/{projectId}/bot-credits': {
    summary: 'Bot credits left this month',
    tags: ['Projects'],
    responses: { 200: { description: "The month's balance.", body: s.botCredits } },
  },
  'POST /projects/{projectId}/bot-credits': {
    summary: 'Grant bot credits for the current month',
    tags: ['Projects'],
    responses: { 200: { description: "The month's balance after the grant.", body: s.botCredits } },
  },
  'POST /projects/{projectId}/channels': {
    summary: 'Create a channel',
    description:
      'A WhatsApp number, an email mailbox or an SMS sender, with the provider that sends on it (sandbox by default).',
    tags: ['Channels'],
    responses: { 201: { description: 'The channel (credentials are never returned).', body: s.channel } },
  },
  'GET /projects/{projectId}/channels': {
    summary: 'List channels',
    tags: ['Channels'],
    responses: { 200: { description: "The project's channels.", body: s.list(s.channel, 'ChannelList') } },
  },
  'GET /projects/{projectId}/channels/{channelId}': {
    summary: 'Get a channel',
    tags: ['Channels'],
    responses: { 200: { description: 'The channel.', body: s.channel } },
  },
  'DELETE /projects/{projectId}/channels/{channelId}': {
    summary: 'Delete a channel',
    description: 'Custom tokens bound to it then answer 404 `CHANNEL_NOT_FOUND` on the send endpoint.',
    tags: ['Channels'],
    responses: { 204: { description: 'Deleted.' } },
  },
  'POST /projects/{projectId}/channels/{channelId}/credits': {
    summary: 'Add channel credits',
    tags: ['Channels'],
    responses: { 200: { description: 'The channel with its new balance.', body: s.channel } },
  },
  'GET /projects/{projectId}/channels/{channelId}/outbox': {
    summary: 'Messages recorded by a sandbox channel',
    tags: ['Channels'],
    query: z.object({
      limit: withMeta(z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))), {
        description: 'Page size (default 100).',
      }),
      cursor: withMeta(z.optional(z.string()), { description: '`nextCursor` of the previous page.' }),
    }),
    responses: { 200: { description: 'Newest first.', body: s.outboxPage } },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/channels/{channelId}/sandbox/inbound': {
    summary: 'Simulate a message received on a sandbox channel',
    description:
      '`{ from, text }` for SMS and WhatsApp, `{ from, subject, text, html? }` for email: emits `message.received` ' +
      'as a real provider report would.',
    tags: ['Channels'],
    responses: { 202: { description: 'The event id.', body: z.object({ eventId: z.string() }) } },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/channels/{channelId}/sandbox/status': {
    summary: 'Simulate a delivery receipt on a sandbox channel',
    description:
      "A status for one of the channel's sent messages, under the same rules as a provider's: forward only " +
      '(sent < delivered < read; read and failed final), once each. `eventId` is absent when nothing changed.',
    tags: ['Channels'],
    responses: { 202: { description: 'Accepted.', body: z.object({ eventId: z.optional(z.string()) }) } },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations': {
    summary: 'Create an integration (webhook or custom)',
    description:
      "A webhook pushes the project's events to `url` (scope `general`: every channel; `channel`: one channel). " +
      'A custom integration gets a `sbc_` token bound to one channel for `POST /api/integration/generic`. ' +
      "The answer carries the webhook's `signingSecret` or the custom `token`, shown once.",
    tags: ['Integrations'],
    responses: { 201: { description: 'The integration with its secret, shown once.', body: s.createdIntegration } },
    errors: { 404: ['CHANNEL_NOT_FOUND'], 409: ['CONFLICT'] },
  },
  'GET /projects/{projectId}/integrations': {
    summary: 'List integrations',
    tags: ['Integrations'],
    responses: {
      200: {
        description: 'Every integration of the project, without secrets.',
        body: s.list(s.integration, 'IntegrationList'),
      },
    },
  },
  'GET /projects/{projectId}/integrations/{integrationId}': {
    summary: 'Get an integration',
    tags: ['Integrations'],
    responses: { 200: { description: 'The integration, without secrets.', body: s.integration } },
  },
  'PATCH /projects/{projectId}/integrations/{integrationId}': {
    summary: 'Change a webhook (url, bearer token, event types, enabled)',
    tags: ['Integrations'],
    responses: { 200: { description: 'The integration after the change.', body: s.integration } },
    errors: { 409: ['CONFLICT'] },
  },
  'DELETE /projects/{projectId}/integrations/{integrationId}': {
    summary: 'Delete an integration',
    description: "A custom integration's token stops working at once.",
    tags: ['Integrations'],
    responses: { 204: { description: 'Deleted.' } },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/rotate-token': {
    summary: "Rotate a custom integration's token (shown once)",
    description: 'The previous token answers 401 `ERR_NO_PERMISSION` at once.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The new token, shown once.', body: s.shownOnceToken } },
    // A webhook has no token: 400.
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/rotate-secret': {
    summary: "Rotate a webhook's signing secret (shown once)",
    description:
      'For 24 h deliveries carry signatures under both secrets, so receivers can switch without losing events.',
    tags: ['Integrations'],
    responses: { 200: { description: 'The new secret, shown once.', body: s.signingSecret } },
    // A custom integration has no signing secret: 400.
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/test': {
    summary: 'Send a test event to one webhook',
    description: 'Queues a `webhook.test` event delivered to this webhook only; follow it in the delivery log.',
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.eventAccepted } },
    // A custom integration has no deliveries: 400 (the same for the delivery log and retries).
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'GET /projects/{projectId}/integrations/{integrationId}/deliveries': {
    summary: "A webhook's delivery log",
    description: 'Newest first; every attempt with its time, status code, duration and error.',
    tags: ['Webhook deliveries'],
    query: z.object({
      status: z.optional(z.enum(['pending', 'succeeded', 'failed'])),
      limit: withMeta(z.optional(z.number().check(z.int(), z.gte(1), z.lte(100))), {
        description: 'Page size (default 50).',
      }),
      cursor: withMeta(z.optional(z.string()), { description: '`nextCursor` of the previous page.' }),
    }),
    responses: { 200: { description: 'Deliveries, newest first.', body: s.deliveryPage } },
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/deliveries/{deliveryId}/retry': {
    summary: 'Retry a delivery now',
    description: 'One more attempt, appended to the same delivery (same `webhook-id`).',
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.retryAccepted } },
    errors: { 400: ['VALIDATION_ERROR'], 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/integrations/{integrationId}/recover': {
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
    summary: "A webhook's last 24 hours, per hour",
    description:
      'Attempts succeeded and failed and the median attempt latency per hour, from counters each attempt updates ' +
      '(the delivery log is not read).',
    tags: ['Webhook deliveries'],
    responses: { 200: { description: 'The last 24 hours, oldest first.', body: s.webhookHealth } },
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'GET /projects/{projectId}/bot-credits/usage': {
    summary: 'Bot credits used per day this month',
    description: 'Credits charged and refunded per UTC day up to today, with the balance, the allowance and grants.',
    tags: ['Projects'],
    responses: { 200: { description: "The month's use.", body: s.botCreditUsage } },
  },
  'POST /projects/{projectId}/events': {
    summary: 'Report a channel event',
    description:
      "How channel back ends report events; each is delivered to every webhook that applies (the general one plus the channel's).",
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.eventAccepted } },
    errors: { 404: ['CHANNEL_NOT_FOUND'] },
  },
  'POST /projects/{projectId}/bots': {
    summary: 'Create a bot',
    tags: ['Bots'],
    responses: { 201: { description: 'The bot.', body: s.bot } },
  },
  'GET /projects/{projectId}/bots': {
    summary: 'List bots',
    tags: ['Bots'],
    responses: { 200: { description: "The project's bots.", body: s.list(s.bot, 'BotList') } },
  },
  'GET /projects/{projectId}/bots/{botId}': {
    summary: 'Get a bot',
    tags: ['Bots'],
    responses: { 200: { description: 'The bot.', body: s.bot } },
  },
  'PATCH /projects/{projectId}/bots/{botId}': {
    summary: 'Change a bot',
    tags: ['Bots'],
    responses: { 200: { description: 'The bot after the change.', body: s.bot } },
  },
  'DELETE /projects/{projectId}/bots/{botId}': {
    summary: 'Delete a bot and its knowledge',
    tags: ['Bots'],
    responses: { 204: { description: 'Deleted.' } },
  },
  'GET /projects/{projectId}/bots/{botId}/knowledge': {
    summary: "A bot's knowledge files and their status, a page at a time",
    description:
      'Files by name (byte order of the UTF-8 name), `limit` per page; pass `nextCursor` back as `cursor` for the ' +
      'next page, until a page comes without one. A bot holds any number of files.',
    tags: ['Bots'],
    query: z.object({
      limit: withMeta(z.optional(z.number().check(z.int(), z.gte(1), z.lte(1000))), {
        description: 'Page size (default 100).',
      }),
      cursor: withMeta(z.optional(z.string()), { description: '`nextCursor` of the previous page.' }),
    }),
    responses: { 200: { description: 'A page of files, by name.', body: s.knowledgeFilePage } },
    errors: { 400: ['VALIDATION_ERROR'] },
  },
  'PUT /projects/{projectId}/bots/{botId}/knowledge/{fileName}': {
    summary: 'Upload a knowledge file',
    description:
      'Raw bytes, 25 MB at most. The same name replaces the file. Ingestion runs in the background: poll the list until `ready`.',
    tags: ['Bots'],
    rawContentTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf'],
    responses: { 202: { description: 'Accepted; ingestion is running.', body: s.knowledgeUploadAccepted } },
    // 400 VALIDATION_ERROR: an empty file or a bad file name.
    errors: {
      400: ['FILE_TOO_LARGE', 'VALIDATION_ERROR'],
      415: ['UNSUPPORTED_MEDIA_TYPE'],
      503: ['SERVICE_UNAVAILABLE'],
    },
  },
  'POST /projects/{projectId}/bots/{botId}/knowledge/{fileName}/upload': {
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
    summary: 'Delete a knowledge file',
    description:
      'Its excerpts leave search at once (before the answer). An upload of the same name that lands meanwhile is newer and proceeds.',
    tags: ['Bots'],
    responses: { 204: { description: 'Deleted.' } },
  },
};
