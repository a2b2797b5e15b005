import { IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '#shared/contract/api-docs.ts';
import { withMeta } from '#shared/kernel/validation/meta.ts';
import * as z from '#shared/kernel/validation/zod.ts';
import { PAYLOAD_SCHEMAS } from '../payloads.ts';
import { conversation, conversationMessagePage, messageStatus, sendResult } from './schemas.ts';
import { scheduledResult } from './volume-docs.ts';

/**
 * The OpenAPI documentation of messaging's public routes (as `shared/contract/routes.ts` declares them): the send,
 * a message's status, a contact's conversation and messages, the providers' inbound addresses, and the legacy send.
 * The sends at volume (batches, scheduled messages) are documented in ./volume-docs.ts.
 */
export function messagingOperationDocs(): PublicOperationDocs {
  return { ...messageOperationDocs(), ...inboundOperationDocs() };
}

/**
 * A send body as the document shows it: the channel's payload and the optional `sendAt` the handler takes off it
 * before the payload's own check (the payload schemas are strict, and a scheduled send is the same body).
 */
const schedulable = (payload: (typeof PAYLOAD_SCHEMAS)[keyof typeof PAYLOAD_SCHEMAS]) =>
  z.strictObject({
    ...payload.shape,
    sendAt: z.optional(
      withMeta(z.string(), {
        description: 'RFC 3339 with its offset, 60 s to 35 days ahead: the message is scheduled (202), not sent now.',
      }),
    ),
  });

/** The custom token's routes: the send, a message's status, a contact's conversation and messages; the legacy send. */
function messageOperationDocs(): PublicOperationDocs {
  return {
    'POST /api/integration/generic': {
      operationId: 'sendMessage',
      summary: "Send a message on the token's channel",
      description:
        "The body's shape depends on the channel the custom token is bound to (WhatsApp, email or SMS); never send " +
        '`channelType`. Checks: token (401) → JSON (400/413) → channel (404) → payload (400) → a recipient opted out ' +
        '(409 `RECIPIENT_OPTED_OUT`) → WhatsApp: a `message` outside the contact’s 24-hour window (409 ' +
        '`WINDOW_CLOSED` with `closedAt`; a `template` goes at any time) → channel credits (402, nothing charged) → ' +
        'provider (502, credit refunded). Emits `message.sent` or `message.failed` to webhooks. With `sendAt` (RFC ' +
        '3339 with its offset, 60 s to 35 days ahead): 202 `scheduled` after the payload check, nothing sent or ' +
        'charged; at that time it runs as a send received then, a refusal then being a `message.failed` whose ' +
        '`error.code` is what the send would have answered. Over the project’s ' +
        '`limits.sendsPerSecond` or the token’s own limit: 429 `RATE_LIMITED` with `Retry-After`, nothing sent.',
      tags: ['Messages'],
      security: 'customToken',
      idempotent: true,
      requestBodies: [
        {
          contentType: 'application/json',
          description: 'One of the three payloads, by the channel type of the token.',
          schema: z.union([
            withMeta(schedulable(PAYLOAD_SCHEMAS.whatsapp), { id: 'SendWhatsAppPayload', title: 'whatsapp channel' }),
            withMeta(schedulable(PAYLOAD_SCHEMAS.email), { id: 'SendEmailPayload', title: 'email channel' }),
            withMeta(schedulable(PAYLOAD_SCHEMAS.sms), { id: 'SendSmsPayload', title: 'sms channel' }),
          ]),
          source: 'handler',
        },
      ],
      responses: {
        200: { description: 'Sent.', body: sendResult },
        202: { description: 'Scheduled (`sendAt`).', body: scheduledResult },
      },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        ...JSON_BODY_ERRORS,
        402: ['PROVIDER_ERROR'],
        404: ['CHANNEL_NOT_FOUND'],
        409: ['RECIPIENT_OPTED_OUT', 'WINDOW_CLOSED', ...(IDEMPOTENCY_ERRORS[409] ?? [])],
        429: ['RATE_LIMITED'],
        502: ['PROVIDER_ERROR'],
      },
    },
    'GET /api/integration/conversations/{contact}': {
      operationId: 'getConversation',
      summary: 'A contact’s conversation: window and opt-out',
      description:
        "For the custom token's channel: the conversation id every message event with this contact carries, the " +
        'WhatsApp 24-hour window (whether a free-form `message` may be sent now, and until when), and whether the ' +
        'contact opted out. `contact` as the channel writes addresses (URL-encode a leading `+`).',
      tags: ['Messages'],
      security: 'customToken',
      responses: { 200: { description: 'The conversation.', body: conversation } },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        400: ['VALIDATION_ERROR'],
        404: ['CHANNEL_NOT_FOUND'],
        429: ['RATE_LIMITED'],
      },
    },
    'GET /api/integration/conversations/{contact}/messages': {
      operationId: 'listConversationMessages',
      summary: 'A contact’s messages, newest first',
      description:
        "For the custom token's channel: the messages sent to and received from the contact, newest first, a page at " +
        'a time; media URLs signed by this read (valid 7 days).',
      tags: ['Messages'],
      security: 'customToken',
      paged: true,
      responses: { 200: { description: 'A page of messages.', body: conversationMessagePage } },
      errors: {
        401: ['ERR_NO_PERMISSION'],
        400: ['VALIDATION_ERROR'],
        404: ['CHANNEL_NOT_FOUND'],
        429: ['RATE_LIMITED'],
      },
    },
    'GET /api/integration/messages/{messageId}': {
      operationId: 'getMessage',
      summary: "A message's status and history",
      description:
        "For messages of the custom token's channel: sent ones (`sent` < `delivered` < `read`, or `failed`; forward " +
        'only, as the provider reports it) and received ones (`received`), with their conversation and media (each ' +
        "URL signed by this read, valid 7 days). Another channel's message answers 404.",
      tags: ['Messages'],
      security: 'customToken',
      responses: { 200: { description: 'The message.', body: messageStatus } },
      errors: { 401: ['ERR_NO_PERMISSION'], 404: ['MESSAGE_NOT_FOUND'], 429: ['RATE_LIMITED'] },
    },
    'ANY /api/integration/send': {
      operationId: 'legacySend',
      summary: 'Deprecated legacy send endpoint',
      description:
        'Answers 410 `GONE` to any method (documented once, as POST); use `POST /api/integration/generic` (`sendMessage`).',
      tags: ['Legacy'],
      security: 'none',
      deprecated: true,
      responses: {},
      errors: { 410: ['GONE'] },
    },
  };
}

/** The providers' inbound addresses: Twilio's callbacks, Meta's subscription check and webhooks. */
function inboundOperationDocs(): PublicOperationDocs {
  return {
    'POST /inbound/twilio/{channelId}': {
      operationId: 'receiveTwilioCallback',
      summary: "Twilio's status callbacks and incoming messages for a channel",
      description:
        "Give this URL (the channel's `inbound.url`) to Twilio as status callback and incoming-message webhook. " +
        'Form-encoded as Twilio posts it; `X-Twilio-Signature` is checked against `PUBLIC_BASE_URL` + path + query and ' +
        "the channel's `authToken` before anything is stored. Answers empty TwiML once the report is queued; " +
        '`message.delivered` / `.read` / `.failed` / `.received` follow on the webhooks. 1 MB at most.',
      tags: ['Inbound'],
      security: 'none',
      requestBodies: [
        {
          contentType: 'application/x-www-form-urlencoded',
          description: "Twilio's own parameters (`MessageSid`, `MessageStatus`, `From`, `To`, `Body`, `NumMedia`...).",
          schema: { type: 'object', additionalProperties: { type: 'string' } },
          source: 'provider',
        },
      ],
      responses: {
        200: {
          description: 'Queued; empty TwiML `<Response></Response>`.',
          text: 'text/xml',
          example: '<Response></Response>',
        },
      },
      errors: { 403: ['INVALID_SIGNATURE'], 404: ['CHANNEL_NOT_FOUND'], 413: ['PAYLOAD_TOO_LARGE'] },
    },
    'GET /inbound/whatsapp/{channelId}': {
      operationId: 'verifyWhatsAppSubscription',
      summary: "Meta's webhook subscription check",
      description:
        "`hub.mode=subscribe` with the channel's `verifyToken` as `hub.verify_token`: answers `hub.challenge` as text/plain.",
      tags: ['Inbound'],
      security: 'none',
      query: {
        properties: {
          'hub.mode': { type: 'string', const: 'subscribe', description: 'Always `subscribe`.', example: 'subscribe' },
          'hub.verify_token': {
            type: 'string',
            description: "The channel's `verifyToken` (`inbound.verifyToken` of the channel).",
            example: 'vt_3k9v0q2m7x1c',
          },
          'hub.challenge': { type: 'string', description: 'Echoed back as the answer.', example: '1158201444' },
        },
        required: ['hub.mode', 'hub.verify_token', 'hub.challenge'],
      },
      responses: { 200: { description: 'The challenge, exactly.', text: 'text/plain', example: '1158201444' } },
      errors: { 403: ['INVALID_SIGNATURE'], 404: ['CHANNEL_NOT_FOUND'] },
    },
    'POST /inbound/whatsapp/{channelId}': {
      operationId: 'receiveWhatsAppWebhook',
      summary: "WhatsApp Cloud's webhooks for a channel",
      description:
        "Meta's JSON, checked against `X-Hub-Signature-256` (HMAC-SHA256 of the raw bytes with the channel's " +
        '`appSecret`) before anything is stored, then queued. A signed body that does not parse is answered 200 and ' +
        'logged (Meta would retry it for days). 3 MB at most.',
      tags: ['Inbound'],
      security: 'none',
      requestBodies: [
        {
          contentType: 'application/json',
          description: "Meta's webhook JSON (`object`, `entry[].changes[].value` with `messages[]` and `statuses[]`).",
          schema: { type: 'object' },
          source: 'provider',
        },
      ],
      responses: { 200: { description: 'Queued.', text: 'text/plain', example: 'OK' } },
      errors: { 403: ['INVALID_SIGNATURE'], 404: ['CHANNEL_NOT_FOUND'], 413: ['PAYLOAD_TOO_LARGE'] },
    },
  };
}
