import { completionRequest } from '../completion/api/completion-request.ts';
import { chatCompletionRequest } from '../completion/api/openai/chat-request.ts';
import { embeddingsRequest } from '../completion/api/openai/embeddings.ts';
import { responsesRequest } from '../completion/api/openai/responses-request.ts';
import { parameterTableMarkdown } from '../models/index.ts';
import { searchRequest } from '../knowledge/api/search-request.ts';
import { PAYLOAD_SCHEMAS, scheduledResult } from '../messaging/index.ts';
import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';
import {
  BOTS_API_AUTH_ERRORS,
  IDEMPOTENCY_ERRORS,
  JSON_BODY_ERRORS,
  type PublicOperationDocs,
} from '../contract/api-docs.ts';
import * as s from './schemas.ts';

const botsApiAuthErrors = BOTS_API_AUTH_ERRORS;
const jsonBodyErrors = JSON_BODY_ERRORS;
const idempotencyErrors = IDEMPOTENCY_ERRORS;

/** The public routes (everything but `/admin/v1`). */
export const PUBLIC_OPERATION_DOCS: PublicOperationDocs = {
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
          withMeta(PAYLOAD_SCHEMAS.whatsapp, { id: 'SendWhatsAppPayload', title: 'whatsapp channel' }),
          withMeta(PAYLOAD_SCHEMAS.email, { id: 'SendEmailPayload', title: 'email channel' }),
          withMeta(PAYLOAD_SCHEMAS.sms, { id: 'SendSmsPayload', title: 'sms channel' }),
        ]),
        source: 'handler',
      },
    ],
    responses: {
      200: { description: 'Sent.', body: s.sendResult },
      202: { description: 'Scheduled (`sendAt`).', body: scheduledResult },
    },
    errors: {
      401: ['ERR_NO_PERMISSION'],
      ...jsonBodyErrors,
      402: ['PROVIDER_ERROR'],
      404: ['CHANNEL_NOT_FOUND'],
      409: ['RECIPIENT_OPTED_OUT', 'WINDOW_CLOSED', ...(idempotencyErrors[409] ?? [])],
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
    responses: { 200: { description: 'The conversation.', body: s.conversation } },
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
    responses: { 200: { description: 'A page of messages.', body: s.conversationMessagePage } },
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
    responses: { 200: { description: 'The message.', body: s.messageStatus } },
    errors: { 401: ['ERR_NO_PERMISSION'], 404: ['MESSAGE_NOT_FOUND'], 429: ['RATE_LIMITED'] },
  },
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
  'POST /api/v1/ai/completion': {
    operationId: 'createCompletion',
    summary: 'Generate text with a bot or standalone instructions (1 bot credit)',
    description:
      'Order: auth → rate limit → body → validation (400) → bot (403/404) → balance (402, nothing charged) → charge 1 → ' +
      'generate; any failure after the charge (502, 504, 500) refunds it once. `responseFormat: "json"` answers `dados`.',
    tags: ['AI'],
    security: 'apiToken',
    idempotent: true,
    rateLimited: true,
    requestBodies: [{ contentType: 'application/json', schema: completionRequest, source: 'handler' }],
    responses: { 200: { description: 'The generated text (or parsed JSON value).', body: s.completionResult } },
    errors: {
      ...jsonBodyErrors,
      ...botsApiAuthErrors,
      402: ['ERR_NO_BOT_CREDITS'],
      403: ['BOT_FORBIDDEN'],
      404: ['BOT_NOT_FOUND'],
      ...idempotencyErrors,
      502: ['GENERATION_FAILED'],
      504: ['GATEWAY_TIMEOUT'],
    },
  },
  'POST /api/v1/ai/chat/completions': {
    operationId: 'createChatCompletion',
    summary: "OpenAI's Chat Completions with a bot as the model (1 bot credit)",
    description:
      'Any OpenAI client works with base URL `{base_url}/api/v1/ai` and the project API token as its key. `model` is a ' +
      "botId: its instructions (then the request's `system` / `developer` messages), its knowledge (top excerpts " +
      'for the last user message) and its model. `messages` reach the model as turns, with assistant `tool_calls` and ' +
      '`tool` results. `tools` (functions), `tool_choice`, `parallel_tool_calls`: the model’s calls come back as ' +
      '`message.tool_calls` with `finish_reason: "tool_calls"` (streamed as `delta.tool_calls`). `response_format` ' +
      '`json_schema`: the answer is validated against the schema (ajv), asked for once more if it is not, then 502 ' +
      '`server_error`, refunded. Order: auth → rate limit → body → validation (400) → bot (403/404) → parameters the ' +
      "bot's provider does not take (400 `unsupported_parameter`) → balance (402) → charge 1 → generate. The credit is " +
      'final once text of the answer was written; refunded when the model fails or nothing reached the client. All ' +
      'messages together: at most 120,000 characters (400 `context_length_exceeded`); `max_tokens` above ' +
      '`BOT_MAX_OUTPUT_TOKENS` is clamped. Every parameter, per provider of the bot’s model:\n\n' +
      parameterTableMarkdown(),
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    errorFormat: 'openai',
    requestBodies: [{ contentType: 'application/json', schema: chatCompletionRequest, source: 'handler' }],
    responses: {
      200: {
        description: 'The completion; with `stream: true`, `text/event-stream` of chunks then `data: [DONE]`.',
        body: s.chatCompletionResult,
        eventStream: s.chatCompletionChunk,
      },
    },
    errors: {
      ...jsonBodyErrors,
      ...botsApiAuthErrors,
      402: ['ERR_NO_BOT_CREDITS'],
      403: ['BOT_FORBIDDEN'],
      404: ['BOT_NOT_FOUND'],
      502: ['GENERATION_FAILED'],
      504: ['GATEWAY_TIMEOUT'],
    },
  },
  'POST /api/v1/ai/responses': {
    summary: "OpenAI's Responses API with a bot as the model, stateless (1 bot credit)",
    description:
      '`input` is a string or items (messages, `function_call`, `function_call_output`; an `item_reference` to a ' +
      'non-streamed answer’s message, whose id carries its text); `instructions`, function `tools`, `tool_choice`, ' +
      '`text.format` (`text`, `json_object`, `json_schema`), `max_output_tokens` (clamped to `BOT_MAX_OUTPUT_TOKENS`), ' +
      '`temperature`, `top_p`, `stream` (OpenAI’s named events, `response.created` first, `response.completed` last). ' +
      'Nothing is stored: `previous_response_id`, `store: true`, `background`, `conversation` and built-in tools are ' +
      '400 `unsupported_parameter`. Same auth, rate limit, credits, bot resolution, knowledge, parameter rules and ' +
      'refunds as chat completions.',
    operationId: 'createResponse',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    errorFormat: 'openai',
    requestBodies: [{ contentType: 'application/json', schema: responsesRequest, source: 'handler' }],
    responses: {
      200: {
        description: 'The response; with `stream: true`, `text/event-stream` of named events.',
        body: s.responseObject,
        eventStream: s.responseStreamEvent,
      },
    },
    errors: {
      ...jsonBodyErrors,
      ...botsApiAuthErrors,
      402: ['ERR_NO_BOT_CREDITS'],
      403: ['BOT_FORBIDDEN'],
      404: ['BOT_NOT_FOUND'],
      502: ['GENERATION_FAILED'],
      504: ['GATEWAY_TIMEOUT'],
    },
  },
  'POST /api/v1/ai/embeddings': {
    summary: "OpenAI's Embeddings (1 bot credit per request of up to 2,048 inputs)",
    description:
      '`model` is a botId of the project or `default`: both embed with the deployment’s embeddings model (the one ' +
      'knowledge indexes use: `EMBEDDINGS_PROVIDER`), or, when it has none, the deterministic hashed embedding ' +
      '(`hashed-ngrams-v1`, 256 dimensions). `input` a string or up to 2,048 strings (each at most 32,768 characters, ' +
      '1,200,000 in all; token arrays: 400). `encoding_format` `float` or `base64`; `dimensions` where the model can. ' +
      'Refunded when the model fails.',
    operationId: 'createEmbeddings',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    errorFormat: 'openai',
    requestBodies: [{ contentType: 'application/json', schema: embeddingsRequest, source: 'handler' }],
    responses: { 200: { description: 'One vector per input, in input order.', body: s.embeddingsResult } },
    errors: {
      ...jsonBodyErrors,
      ...botsApiAuthErrors,
      402: ['ERR_NO_BOT_CREDITS'],
      403: ['BOT_FORBIDDEN'],
      404: ['BOT_NOT_FOUND'],
      502: ['GENERATION_FAILED'],
    },
  },
  'GET /api/v1/ai/models': {
    operationId: 'listModels',
    summary: "The project's bots as OpenAI's model list (free)",
    description:
      'What `client.models.list()` shows: each bot a model whose `id` is the botId. Counted by the rate limit.',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    errorFormat: 'openai',
    responses: { 200: { description: "The project's bots.", body: s.modelList } },
    errors: botsApiAuthErrors,
  },
  'GET /api/v1/ai/models/{id}': {
    summary: 'One bot as an OpenAI model object (free)',
    description:
      'What `client.models.retrieve(botId)` returns. A bot that does not exist or is another project’s: 404 ' +
      '`model_not_found`, as OpenAI answers a model the key cannot use. Counted by the rate limit.',
    operationId: 'getModel',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    errorFormat: 'openai',
    responses: { 200: { description: 'The bot.', body: s.modelObject } },
    errors: { ...botsApiAuthErrors, 404: ['BOT_NOT_FOUND'] },
  },
  'POST /api/v1/ai/search': {
    operationId: 'searchKnowledge',
    summary: "Search a bot's knowledge (free)",
    description:
      'Excerpts only, no generation. A bot with no ready documents, or a failing index, answers 200 with `trechos: []`.',
    tags: ['AI'],
    security: 'apiToken',
    rateLimited: true,
    requestBodies: [{ contentType: 'application/json', schema: searchRequest, source: 'handler' }],
    responses: { 200: { description: 'Best excerpts first, at most `topK`.', body: s.searchResult } },
    errors: { ...jsonBodyErrors, ...botsApiAuthErrors, 403: ['BOT_FORBIDDEN'], 404: ['BOT_NOT_FOUND'] },
  },
};

const addressesSchema = (what: string) => ({
  description: `${what}: one email address or a list of them (at most 50).`,
  anyOf: [
    { type: 'string', format: 'email' },
    { type: 'array', items: { type: 'string', format: 'email' }, minItems: 1, maxItems: 50 },
  ],
});

/**
 * JSON Schema for zod schemas that cannot describe themselves (fields the handlers parse with a transform).
 * Used by the document builder in place of zod's `{}`.
 */
export const SCHEMA_OVERRIDES = new Map<z.core.$ZodType, Record<string, unknown>>([
  [PAYLOAD_SCHEMAS.email.shape.to, addressesSchema('Recipients')],
  [PAYLOAD_SCHEMAS.email.shape.bcc, addressesSchema('Blind copies')],
]);
