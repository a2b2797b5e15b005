import * as z from '../kernel/validation/zod.ts';
import { EXAMPLE_IDS } from './examples.ts';
import type { RouteDoc } from '../contract/api-docs.ts';
import * as s from './schemas.ts';

/**
 * Documentation of every management API route, keyed by `METHOD path` as the route declares it. The request body
 * schema is never repeated here: the document takes it from the route's declaration. A route without an entry is
 * reported as undocumented (and fails a test).
 */
export const ADMIN_ROUTE_DOCS: Record<string, RouteDoc> = {
  'POST /projects/{projectId}/channels': {
    operationId: 'createChannel',
    summary: 'Create a channel',
    description:
      'A WhatsApp number, an email mailbox or an SMS sender, with the provider that sends on it (sandbox by default).',
    tags: ['Channels'],
    responses: { 201: { description: 'The channel (credentials are never returned).', body: s.channel } },
  },
  'GET /projects/{projectId}/channels': {
    operationId: 'listChannels',
    summary: 'List channels',
    description: "The project's channels, a page at a time; credentials are never returned.",
    tags: ['Channels'],
    responses: { 200: { description: 'A page of channels.', body: s.channelPage } },
  },
  'GET /projects/{projectId}/channels/{channelId}': {
    operationId: 'getChannel',
    summary: 'Get a channel',
    description: 'The channel by id; credentials are never returned.',
    tags: ['Channels'],
    responses: { 200: { description: 'The channel.', body: s.channel } },
  },
  'PATCH /projects/{projectId}/channels/{channelId}': {
    operationId: 'updateChannel',
    summary: 'Rename a channel or change its opt-out keywords',
    description:
      'Changes `name`, `optOutKeywords` and `optInKeywords` (SMS and WhatsApp; `null` restores the defaults). A ' +
      'keyword in both lists, or keywords on an email channel, is 400.',
    tags: ['Channels'],
    responses: { 200: { description: 'The channel.', body: s.channel } },
  },
  'GET /projects/{projectId}/channels/{channelId}/suppressions': {
    operationId: 'listSuppressions',
    summary: 'Contacts the channel does not send to',
    description:
      'Contacts that opted out (an opt-out keyword, their own List-Unsubscribe address) or whose mail bounced for good, in ' +
      'contact order, a page at a time. A send to one answers 409 `RECIPIENT_OPTED_OUT`.',
    tags: ['Channels'],
    responses: { 200: { description: 'A page of suppressions.', body: s.suppressionPage } },
  },
  'GET /projects/{projectId}/channels/{channelId}/suppressions/{contact}': {
    operationId: 'getSuppression',
    summary: 'Whether a contact is suppressed, and why',
    description: '404 `NOT_FOUND` when the contact is not suppressed; 400 for a contact the channel cannot write.',
    tags: ['Channels'],
    // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
    errors: { 400: ['VALIDATION_ERROR'] },
    responses: { 200: { description: 'The suppression.', body: s.suppression } },
  },
  'DELETE /projects/{projectId}/channels/{channelId}/suppressions/{contact}': {
    operationId: 'deleteSuppression',
    summary: 'Send to a suppressed contact again',
    description:
      'Lifts the suppression and emits `contact.opted_in` with `reason: "admin"`. 404 `NOT_FOUND` when the contact ' +
      'is not suppressed.',
    tags: ['Channels'],
    // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
    errors: { 400: ['VALIDATION_ERROR'] },
    responses: { 204: { description: 'Lifted.' } },
  },
  'GET /projects/{projectId}/channels/{channelId}/conversations/{contact}': {
    operationId: 'getChannelConversation',
    summary: "A contact's conversation: window and opt-out",
    description:
      'What `GET /api/integration/conversations/{contact}` answers a custom token of this channel: the conversation ' +
      'id, the WhatsApp 24-hour window, and whether the contact opted out.',
    tags: ['Channels'],
    // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
    errors: { 400: ['VALIDATION_ERROR'] },
    responses: { 200: { description: 'The conversation.', body: s.conversation } },
  },
  'GET /projects/{projectId}/channels/{channelId}/conversations/{contact}/messages': {
    operationId: 'listChannelMessages',
    summary: "A contact's messages on the channel",
    description:
      'Both directions, newest first, a page at a time; media URLs are signed by this read (valid 7 days). What ' +
      '`GET /api/integration/conversations/{contact}/messages` answers a custom token.',
    tags: ['Channels'],
    // A contact the channel cannot write (not a phone number on SMS and WhatsApp, not an address on email): 400.
    errors: { 400: ['VALIDATION_ERROR'] },
    responses: { 200: { description: 'A page of messages, newest first.', body: s.conversationMessagePage } },
  },
  'DELETE /projects/{projectId}/channels/{channelId}': {
    operationId: 'deleteChannel',
    summary: 'Delete a channel',
    description: 'Custom tokens bound to it then answer 404 `CHANNEL_NOT_FOUND` on the send endpoint.',
    tags: ['Channels'],
    responses: { 204: { description: 'Deleted.' } },
  },
  'POST /projects/{projectId}/channels/{channelId}/credits': {
    operationId: 'addChannelCredits',
    summary: 'Add channel credits',
    description: 'Adds `amount` send credits to the channel (a send costs one); an unmetered channel becomes metered.',
    tags: ['Channels'],
    responses: { 200: { description: 'The channel with its new balance.', body: s.channel } },
  },
  'GET /projects/{projectId}/channels/{channelId}/outbox': {
    operationId: 'listOutboxMessages',
    summary: 'Messages recorded by a sandbox channel',
    description:
      'Sandbox channels only (409 `CONFLICT` otherwise): what a real provider would have sent, newest first, a page at a time.',
    tags: ['Channels'],
    responses: { 200: { description: 'A page of messages, newest first.', body: s.outboxPage } },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/channels/{channelId}/sandbox/inbound': {
    operationId: 'simulateInboundMessage',
    summary: 'Simulate a message received on a sandbox channel',
    description:
      '`{ from, text }` for SMS and WhatsApp, `{ from, subject, text, html? }` for email: emits `message.received` ' +
      'as a real provider report would.',
    tags: ['Channels'],
    responses: { 202: { description: 'The event id.', body: s.eventAccepted } },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/channels/{channelId}/sandbox/status': {
    operationId: 'simulateDeliveryStatus',
    summary: 'Simulate a delivery receipt on a sandbox channel',
    description:
      "A status for one of the channel's sent messages, under the same rules as a provider's: forward only " +
      '(sent < delivered < read; read and failed final), once each. `eventId` is absent when nothing changed.',
    tags: ['Channels'],
    responses: {
      202: {
        description: 'Accepted; `eventId` of the event it emitted, absent when the status did not move.',
        body: z.object({ eventId: z.optional(z.string()) }),
        example: { eventId: EXAMPLE_IDS.eventId },
      },
    },
    errors: { 409: ['CONFLICT'] },
  },
  'POST /projects/{projectId}/events': {
    operationId: 'reportEvent',
    summary: 'Report a channel event',
    description:
      "How channel back ends report events; each is delivered to every webhook that applies (the general one plus the channel's). " +
      "Over the project's `limits.eventsPerSecond`: 429 `RATE_LIMITED` with `Retry-After`, nothing queued.",
    tags: ['Webhook deliveries'],
    responses: { 202: { description: 'Queued.', body: s.eventAccepted } },
    errors: { 404: ['CHANNEL_NOT_FOUND'], 429: ['RATE_LIMITED'] },
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
