import { z } from 'zod';

/**
 * Answer bodies as the API returns them, written as zod schemas so the OpenAPI document shows them and tests can
 * check real answers against them (`test/e2e/openapi.test.ts`). Request bodies are never redefined here: they come
 * from the routes and handlers that validate them.
 */

const isoTime = z.iso.datetime().meta({ description: 'ISO 8601 timestamp (UTC).' });
const channelType = z.enum(['whatsapp', 'email', 'sms']);

/** `{ success: false, error, message, details?, requestId }`: every answer with status >= 400 (contract 1). */
export const errorBody = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'Machine-readable code (see the operation\'s answers for the codes it can give).' }),
    message: z.string().meta({ description: 'Human text; wording may change.' }),
    details: z
      .array(
        z.object({
          path: z.string().meta({ description: 'Dotted path of the field: `to`, `files.0`, `filters.incluirArquivos`.' }),
          message: z.string(),
          code: z.string().meta({ description: 'The zod issue code (`invalid_type`, `too_big`, `unrecognized_keys`, `custom`, ...).' }),
        }),
      )
      .optional()
      .meta({ description: 'Validation errors: one entry per problem, all at once.' }),
    requestId: z.string().meta({ description: 'The `x-request-id` of the request.' }),
  })
  .meta({ id: 'Error' });

export const project = z
  .object({ projectId: z.string(), companyId: z.number().int(), name: z.string(), monthlyBotCredits: z.number().int() })
  .meta({ id: 'Project' });

export const projectPage = z
  .object({ items: z.array(project), nextCursor: z.string().optional().meta({ description: 'Pass as `cursor` for the next page.' }) })
  .meta({ id: 'ProjectPage' });

export const apiTokenState = z
  .object({
    active: z.boolean().meta({ description: 'Whether the project has an API token now.' }),
    issuedAt: z.string().optional().meta({ description: 'When the current token was issued (ISO 8601).' }),
  })
  .meta({ id: 'ApiTokenState' });

export const shownOnceToken = z
  .object({ token: z.string().meta({ description: 'Shown once: only its SHA-256 is stored.' }) })
  .meta({ id: 'ShownOnceToken' });

export const botCredits = z
  .object({
    disponivel: z.number().int().meta({ description: 'Bot credits left this month.' }),
    mes: z.string().regex(/^\d{2}\/\d{4}$/).meta({ description: 'The month, `MM/YYYY` (UTC).' }),
  })
  .meta({ id: 'BotCredits' });

export const channel = z
  .object({
    channelId: z.string(),
    type: channelType,
    name: z.string(),
    address: z.string().meta({ description: 'Phone number, mailbox or SMS sender.' }),
    provider: z
      .object({ kind: z.enum(['sandbox', 'smtp', 'twilio', 'whatsapp-cloud']) })
      .catchall(z.unknown())
      .meta({ description: 'The provider without its credentials (`hasPassword` instead of `pass`).' }),
    credits: z.number().int().optional().meta({ description: 'Channel credits left; absent = unmetered.' }),
    createdAt: isoTime,
  })
  .meta({ id: 'Channel' });

export const outboxPage = z
  .object({
    items: z.array(
      z.object({ messageId: z.string(), to: z.union([z.string(), z.array(z.string())]), payload: z.record(z.string(), z.unknown()), sentAt: isoTime }),
    ),
    nextCursor: z.string().optional(),
  })
  .meta({ id: 'OutboxPage' });

export const integration = z
  .object({
    integrationId: z.string(),
    product: z.enum(['webhook', 'custom']),
    scope: z.enum(['general', 'channel']),
    channelId: z.string().nullable(),
    url: z.string().nullable(),
    eventTypes: z.array(z.string()).nullable().meta({ description: 'Subscribed event types; null = every type.' }),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().meta({ description: '`manual`, `gone` (the receiver answered 410), `failing` (5 days of failures).' }),
    hasBearerToken: z.boolean(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Integration' });

export const createdIntegration = integration
  .extend({
    token: z.string().optional().meta({ description: 'Custom integrations: the `sbc_` token, shown once.' }),
    signingSecret: z.string().optional().meta({ description: 'Webhooks: the `whsec_` signing secret, shown once.' }),
  })
  .meta({ id: 'CreatedIntegration' });

export const signingSecret = z
  .object({ signingSecret: z.string().meta({ description: 'The new `whsec_` secret, shown once. The previous one keeps signing for 24 h.' }) })
  .meta({ id: 'SigningSecret' });

export const eventAccepted = z.object({ eventId: z.string() }).meta({ id: 'EventAccepted' });

export const delivery = z
  .object({
    deliveryId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(
      z.object({
        at: isoTime,
        statusCode: z.number().int().optional().meta({ description: 'The receiver\'s status; absent when no answer came.' }),
        durationMs: z.number(),
        error: z.string().optional(),
      }),
    ),
    nextAttemptAt: isoTime.optional().meta({ description: 'While pending: when the next automatic attempt runs.' }),
  })
  .meta({ id: 'Delivery' });

export const deliveryPage = z.object({ items: z.array(delivery), nextCursor: z.string().optional() }).meta({ id: 'DeliveryPage' });

export const retryAccepted = z.object({ deliveryId: z.string(), status: z.literal('pending') }).meta({ id: 'RetryAccepted' });

export const bot = z
  .object({
    botId: z.string(),
    projectId: z.string(),
    name: z.string(),
    instructions: z.string(),
    model: z.string().nullable(),
    temperature: z.number().nullable(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'Bot' });

export const knowledgeFile = z
  .object({
    fileName: z.string(),
    status: z.enum(['processing', 'ready', 'failed']),
    chunks: z.number().int(),
    error: z.string().optional(),
    contentType: z.string(),
    bytes: z.number().int(),
    uploadedAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'KnowledgeFile' });

export const knowledgeUploadAccepted = z
  .object({ fileName: z.string(), status: z.literal('processing') })
  .meta({ id: 'KnowledgeUploadAccepted' });

export const list = <T extends z.ZodType>(item: T, id: string) => z.object({ items: z.array(item) }).meta({ id });

export const sendResult = z
  .object({
    success: z.literal(true),
    messageId: z.string(),
    status: z.literal('sent'),
    channel: z.object({ id: z.string(), type: channelType }),
  })
  .meta({ id: 'SendResult' });

const usage = z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }).meta({ description: 'When the model reports it.' });

export const completionResult = z
  .union([
    z.object({ success: z.literal(true), result: z.string(), usage: usage.optional() }).meta({ title: 'responseFormat text' }),
    z.object({ success: z.literal(true), dados: z.unknown(), usage: usage.optional() }).meta({ title: 'responseFormat json' }),
  ])
  .meta({ id: 'CompletionResult' });

export const searchResult = z
  .object({
    success: z.literal(true),
    trechos: z.array(
      z.object({
        texto: z.string(),
        procedencia: z.string().meta({ description: 'The file name as uploaded.' }),
        score: z.number().min(0).max(1),
      }),
    ),
  })
  .meta({ id: 'SearchResult' });

export const extractResult = z
  .union([
    z.object({ success: z.literal(true), result: z.string().meta({ description: 'Pages separated by a blank line.' }) }).meta({ title: 'mode text' }),
    z
      .object({
        success: z.literal(true),
        dados: z.object({ pages: z.array(z.object({ page: z.number().int(), text: z.string(), ocr: z.boolean() })) }),
      })
      .meta({ title: 'mode pages' }),
  ])
  .meta({ id: 'ExtractResult' });

export const extractUpload = z
  .object({
    success: z.literal(true),
    uploadUrl: z.string().meta({ description: 'Where to POST the PDF as multipart/form-data (the `fields` first, then `file`).' }),
    method: z.literal('POST'),
    fields: z.record(z.string(), z.string()).meta({ description: 'Form fields of the presigned POST, sent as given.' }),
    fileKey: z.string().meta({ description: 'Pass it to `POST /api/v1/ai/extract` as JSON `{ "fileKey": "..." }`.' }),
    expiresAt: isoTime,
    maxBytes: z.number().int(),
  })
  .meta({ id: 'ExtractUpload' });

export const healthResult = z
  .object({
    success: z.literal(true),
    companyId: z.number().int(),
    botrag: z.object({ ok: z.boolean(), latenciaMs: z.number(), detalhe: z.string().optional() }),
    creditos: botCredits,
    checkedAt: isoTime,
  })
  .meta({ id: 'Health' });
