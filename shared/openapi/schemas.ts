import { CHANNEL_TYPES } from '../messaging/channel.ts';
import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';

/**
 * Answer bodies as the API returns them, written as zod schemas so the OpenAPI document shows them and tests can
 * check real answers against them (`test/e2e/openapi.test.ts`). Request bodies are never redefined here: they come
 * from the routes and handlers that validate them.
 */

const int = () => z.number().check(z.int());
const isoTime = withMeta(z.iso.datetime(), { description: 'ISO 8601 timestamp (UTC).' });
const channelType = z.enum(CHANNEL_TYPES);

/** `{ success: false, error, message, details?, requestId }`: every answer with status >= 400 (contract 1). */
export const errorBody = withMeta(
  z.object({
    success: z.literal(false),
    error: withMeta(z.string(), {
      description: "Machine-readable code (see the operation's answers for the codes it can give).",
    }),
    message: withMeta(z.string(), { description: 'Human text; wording may change.' }),
    details: withMeta(
      z.optional(
        z.array(
          z.object({
            path: withMeta(z.string(), {
              description: 'Dotted path of the field: `to`, `files.0`, `filters.incluirArquivos`.',
            }),
            message: z.string(),
            code: withMeta(z.string(), {
              description: 'The zod issue code (`invalid_type`, `too_big`, `unrecognized_keys`, `custom`, ...).',
            }),
          }),
        ),
      ),
      { description: 'Validation errors: one entry per problem, all at once.' },
    ),
    requestId: withMeta(z.string(), { description: 'The `x-request-id` of the request.' }),
  }),
  { id: 'Error' },
);

export const project = withMeta(
  z.object({ projectId: z.string(), companyId: int(), name: z.string(), monthlyBotCredits: int() }),
  { id: 'Project' },
);

export const projectPage = withMeta(
  z.object({
    items: z.array(project),
    nextCursor: withMeta(z.optional(z.string()), { description: 'Pass as `cursor` for the next page.' }),
  }),
  { id: 'ProjectPage' },
);

export const apiTokenState = withMeta(
  z.object({
    active: withMeta(z.boolean(), { description: 'Whether the project has an API token now.' }),
    issuedAt: withMeta(z.optional(z.string()), { description: 'When the current token was issued (ISO 8601).' }),
  }),
  { id: 'ApiTokenState' },
);

export const shownOnceToken = withMeta(
  z.object({ token: withMeta(z.string(), { description: 'Shown once: only its SHA-256 is stored.' }) }),
  {
    id: 'ShownOnceToken',
  },
);

export const botCredits = withMeta(
  z.object({
    disponivel: withMeta(int(), { description: 'Bot credits left this month.' }),
    mes: withMeta(z.string().check(z.regex(/^\d{2}\/\d{4}$/)), { description: 'The month, `MM/YYYY` (UTC).' }),
  }),
  { id: 'BotCredits' },
);

export const channel = withMeta(
  z.object({
    channelId: z.string(),
    type: channelType,
    name: z.string(),
    address: withMeta(z.string(), { description: 'Phone number, mailbox or SMS sender.' }),
    provider: withMeta(
      z.catchall(z.object({ kind: z.enum(['sandbox', 'smtp', 'twilio', 'whatsapp-cloud']) }), z.unknown()),
      {
        description:
          'The provider without its credentials (`hasPassword` instead of `pass`, `hasAppSecret` instead of `appSecret`).',
      },
    ),
    credits: withMeta(z.optional(int()), { description: 'Channel credits left; absent = unmetered.' }),
    inbound: withMeta(
      z.optional(
        z.union([
          z.object({ url: z.string(), verifyToken: z.optional(z.string()) }),
          z.object({ address: z.string() }),
        ]),
      ),
      {
        description:
          'Where the provider reports back: the URL to give Twilio or Meta (with the `verifyToken` for Meta), or the ' +
          'mailbox of an email channel. Absent for sandbox SMS and WhatsApp channels.',
      },
    ),
    createdAt: isoTime,
  }),
  { id: 'Channel' },
);

export const outboxPage = withMeta(
  z.object({
    items: z.array(
      z.object({
        messageId: z.string(),
        to: z.union([z.string(), z.array(z.string())]),
        payload: z.record(z.string(), z.unknown()),
        sentAt: isoTime,
      }),
    ),
    nextCursor: z.optional(z.string()),
  }),
  { id: 'OutboxPage' },
);

export const integration = withMeta(
  z.object({
    integrationId: z.string(),
    product: z.enum(['webhook', 'custom']),
    scope: z.enum(['general', 'channel']),
    channelId: z.nullable(z.string()),
    url: z.nullable(z.string()),
    eventTypes: withMeta(z.nullable(z.array(z.string())), {
      description: 'Subscribed event types; null = every type.',
    }),
    rateLimitPerSecond: withMeta(z.nullable(z.number().check(z.int())), {
      description: 'Most delivery attempts started in any one-second interval (1 to 10,000); null = no limit.',
    }),
    enabled: z.boolean(),
    disabledReason: withMeta(z.nullable(z.string()), {
      description: '`manual`, `gone` (the receiver answered 410), `failing` (5 days of failures).',
    }),
    hasBearerToken: z.boolean(),
    createdAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'Integration' },
);

export const createdIntegration = withMeta(
  z.extend(integration, {
    token: withMeta(z.optional(z.string()), { description: 'Custom integrations: the `sbc_` token, shown once.' }),
    signingSecret: withMeta(z.optional(z.string()), {
      description: 'Webhooks: the `whsec_` signing secret, shown once.',
    }),
  }),
  { id: 'CreatedIntegration' },
);

export const signingSecret = withMeta(
  z.object({
    signingSecret: withMeta(z.string(), {
      description: 'The new `whsec_` secret, shown once. The previous one keeps signing for 24 h.',
    }),
  }),
  { id: 'SigningSecret' },
);

export const eventAccepted = withMeta(z.object({ eventId: z.string() }), { id: 'EventAccepted' });

export const delivery = withMeta(
  z.object({
    deliveryId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(
      z.object({
        at: isoTime,
        statusCode: withMeta(z.optional(int()), { description: "The receiver's status; absent when no answer came." }),
        durationMs: z.number(),
        error: z.optional(z.string()),
      }),
    ),
    nextAttemptAt: withMeta(z.optional(isoTime), {
      description: 'While pending: when the next automatic attempt runs.',
    }),
  }),
  { id: 'Delivery' },
);

export const deliveryPage = withMeta(z.object({ items: z.array(delivery), nextCursor: z.optional(z.string()) }), {
  id: 'DeliveryPage',
});

export const recoverAccepted = withMeta(
  z.object({
    recovered: withMeta(z.number().check(z.int()), { description: 'Failed deliveries this call re-queued.' }),
    continued: withMeta(z.optional(z.boolean()), {
      description: 'true when more failed deliveries were left to a worker to re-queue (very large windows).',
    }),
  }),
  { id: 'RecoverAccepted' },
);

export const retryAccepted = withMeta(z.object({ deliveryId: z.string(), status: z.literal('pending') }), {
  id: 'RetryAccepted',
});

export const bot = withMeta(
  z.object({
    botId: z.string(),
    projectId: z.string(),
    name: z.string(),
    instructions: z.string(),
    model: z.nullable(z.string()),
    temperature: z.nullable(z.number()),
    createdAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'Bot' },
);

export const knowledgeFile = withMeta(
  z.object({
    fileName: z.string(),
    status: z.enum(['processing', 'ready', 'failed']),
    chunks: int(),
    error: z.optional(z.string()),
    ocrPages: z.optional(int()),
    contentType: z.string(),
    bytes: int(),
    uploadedAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'KnowledgeFile' },
);

export const knowledgeUploadAccepted = withMeta(z.object({ fileName: z.string(), status: z.literal('processing') }), {
  id: 'KnowledgeUploadAccepted',
});

export const knowledgeUploadUrl = withMeta(
  z.object({
    uploadUrl: z.string(),
    method: z.literal('POST'),
    fields: z.record(z.string(), z.string()),
    expiresAt: isoTime,
    maxBytes: int(),
  }),
  { id: 'KnowledgeUploadUrl' },
);

export const list = <T extends z.ZodMiniType>(item: T, id: string) =>
  withMeta(z.object({ items: z.array(item) }), { id });

export const sendResult = withMeta(
  z.object({
    success: z.literal(true),
    messageId: z.string(),
    status: z.literal('sent'),
    channel: z.object({ id: z.string(), type: channelType }),
  }),
  { id: 'SendResult' },
);

export const messageStatus = withMeta(
  z.object({
    success: z.literal(true),
    messageId: z.string(),
    direction: z.enum(['outbound', 'inbound']),
    status: z.enum(['sent', 'delivered', 'read', 'failed', 'received']),
    channel: z.object({ id: z.string(), type: channelType }),
    to: z.union([z.string(), z.array(z.string())]),
    from: z.optional(z.string()),
    createdAt: z.string(),
    history: z.array(z.object({ status: z.string(), at: z.string() })),
    error: z.optional(z.string()),
  }),
  { id: 'MessageStatus' },
);

const usage = withMeta(z.object({ inputTokens: int(), outputTokens: int() }), {
  description: 'When the model reports it.',
});

/** The wire's `fontes`: the knowledge files the answer was grounded on (native completion and the OpenAI route). */
export const fontes = withMeta(
  z.array(
    z.object({
      procedencia: withMeta(z.string(), { description: 'The file name as uploaded.' }),
      score: withMeta(z.number().check(z.gte(0), z.lte(1)), { description: "The file's best excerpt's score." }),
    }),
  ),
  {
    id: 'Fontes',
    description:
      'Present when the bot has knowledge and excerpts were given to the model: one entry per file, best first.',
  },
);

export const completionResult = withMeta(
  z.union([
    withMeta(
      z.object({ success: z.literal(true), result: z.string(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat text' },
    ),
    withMeta(
      z.object({ success: z.literal(true), dados: z.unknown(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat json' },
    ),
  ]),
  { id: 'CompletionResult' },
);

export const searchResult = withMeta(
  z.object({
    success: z.literal(true),
    trechos: z.array(
      z.object({
        texto: z.string(),
        procedencia: withMeta(z.string(), { description: 'The file name as uploaded.' }),
        score: z.number().check(z.gte(0), z.lte(1)),
      }),
    ),
  }),
  { id: 'SearchResult' },
);

export const extractResult = withMeta(
  z.union([
    withMeta(
      z.object({
        success: z.literal(true),
        result: withMeta(z.string(), { description: 'Pages separated by a blank line.' }),
      }),
      { title: 'mode text' },
    ),
    withMeta(
      z.object({
        success: z.literal(true),
        dados: z.object({ pages: z.array(z.object({ page: int(), text: z.string(), ocr: z.boolean() })) }),
      }),
      { title: 'mode pages' },
    ),
  ]),
  { id: 'ExtractResult' },
);

export const extractUpload = withMeta(
  z.object({
    success: z.literal(true),
    uploadUrl: withMeta(z.string(), {
      description: 'Where to POST the PDF as multipart/form-data (the `fields` first, then `file`).',
    }),
    method: z.literal('POST'),
    fields: withMeta(z.record(z.string(), z.string()), {
      description: 'Form fields of the presigned POST, sent as given.',
    }),
    fileKey: withMeta(z.string(), {
      description: 'Pass it to `POST /api/v1/ai/extract` as JSON `{ "fileKey": "..." }`.',
    }),
    expiresAt: isoTime,
    maxBytes: int(),
  }),
  { id: 'ExtractUpload' },
);

export const healthResult = withMeta(
  z.object({
    success: z.literal(true),
    companyId: int(),
    botrag: z.object({ ok: z.boolean(), latenciaMs: z.number(), detalhe: z.optional(z.string()) }),
    creditos: botCredits,
    checkedAt: isoTime,
  }),
  { id: 'Health' },
);

/** OpenAI's error body, on the OpenAI-format routes only (contract §12). */
export const openAiErrorBody = withMeta(
  z.object({
    error: z.object({
      message: z.string(),
      type: withMeta(z.string(), {
        description:
          '`invalid_request_error`, `authentication_error`, `permission_error`, `insufficient_quota`, `rate_limit_error`, `api_error`, `timeout_error`.',
      }),
      param: z.nullable(z.string()),
      code: z.nullable(z.string()),
    }),
  }),
  { id: 'OpenAiError' },
);

const chatUsage = z.object({ prompt_tokens: int(), completion_tokens: int(), total_tokens: int() });
const finishReason = z.enum(['stop', 'length']);

export const chatCompletionResult = withMeta(
  z.object({
    id: withMeta(z.string(), { description: '`chatcmpl-…`' }),
    object: z.literal('chat.completion'),
    created: withMeta(int(), { description: 'Unix seconds.' }),
    model: withMeta(z.string(), { description: 'The botId.' }),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: finishReason,
      }),
    ),
    usage: z.optional(chatUsage),
    fontes: z.optional(fontes),
  }),
  { id: 'ChatCompletion' },
);

export const chatCompletionChunk = withMeta(
  z.object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: int(),
    model: z.string(),
    choices: withMeta(
      z.array(
        z.object({
          index: z.literal(0),
          delta: z.object({ role: z.optional(z.literal('assistant')), content: z.optional(z.string()) }),
          logprobs: z.null(),
          finish_reason: z.nullable(finishReason),
        }),
      ),
      { description: 'Empty in the usage chunk (`stream_options.include_usage`).' },
    ),
    usage: z.optional(z.nullable(chatUsage)),
    fontes: withMeta(z.optional(fontes), { description: 'On the chunk that carries `finish_reason`.' }),
  }),
  {
    id: 'ChatCompletionChunk',
    description:
      'One `data:` event of the stream; the stream ends with `data: [DONE]`, or, after a failure, with `data: {"error": {…}}` (OpenAiError) and no `[DONE]`.',
  },
);

export const modelList = withMeta(
  z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        id: withMeta(z.string(), { description: 'The botId.' }),
        object: z.literal('model'),
        created: withMeta(int(), { description: 'Unix seconds: when the bot was created.' }),
        owned_by: withMeta(z.string(), { description: 'The projectId.' }),
      }),
    ),
  }),
  { id: 'ModelList' },
);

/** A webhook's last 24 hours of delivery attempts, hour by hour (the console's health chart). */
export const webhookHealth = withMeta(
  z.object({
    succeeded: withMeta(int(), { description: 'Attempts answered 2xx in the 24 hours.' }),
    failed: withMeta(int(), { description: 'Attempts that failed in the 24 hours (any other answer, or none).' }),
    hours: withMeta(
      z.array(
        z.object({
          hour: withMeta(isoTime, { description: 'Start of the hour (UTC); 24 hours, the current one last.' }),
          succeeded: int(),
          failed: int(),
          medianLatencyMs: withMeta(z.nullable(int()), {
            description:
              'Median attempt latency, as the upper edge of the histogram bucket that holds it (edges 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 15000 ms); null in an hour without attempts.',
          }),
        }),
      ),
      { description: 'Every hour of the last 24, oldest first; an hour without attempts has zeros.' },
    ),
  }),
  { id: 'WebhookHealth' },
);

/** This month's bot credit use per UTC day (the console's credit chart). */
export const botCreditUsage = withMeta(
  z.object({
    mes: withMeta(z.string().check(z.regex(/^\d{2}\/\d{4}$/)), { description: 'The month, `MM/YYYY` (UTC).' }),
    disponivel: withMeta(int(), { description: 'Bot credits left this month.' }),
    allowance: withMeta(int(), { description: "The month's allowance (the project's monthly bot credits)." }),
    granted: withMeta(int(), { description: 'Credits granted on top of the allowance this month.' }),
    days: withMeta(z.array(z.object({ day: int(), charged: int(), refunded: int() })), {
      description:
        'Each UTC day of the month up to today: credits charged and credits refunded that day (used = charged - refunded).',
    }),
  }),
  { id: 'BotCreditUsage' },
);
