import { EXAMPLE_AT, EXAMPLE_IDS, EXAMPLE_LATER } from './examples.ts';

/**
 * One example per named answer schema of the OpenAPI document: the document puts each on its component and composes
 * every answer's example from them. `test/unit/openapi-document.test.ts` checks each against its schema.
 */

const ids = EXAMPLE_IDS;
const at = EXAMPLE_AT;
const later = EXAMPLE_LATER;

const conversationId = 'conv_4k2m7c4v8b6n5p01hq3x';
const receivedMessage = {
  messageId: 'msg_7q2w9e4r6t1y3u5i8o0p',
  conversationId,
  direction: 'inbound',
  status: 'received',
  channel: { id: ids.channelId, type: 'whatsapp' },
  to: '5511977776666',
  from: '5511988887777',
  contact: '5511988887777',
  text: 'Here is the receipt',
  media: [
    {
      contentType: 'image/jpeg',
      size: 48213,
      sha256: '9f2c4e8a1b7d3f6e0a5c9b2d8e4f1a7c3b6d0e9f2a5c8b1d4e7f0a3c6b9d2e5f',
      url: 'https://switchboard-transfer.s3.amazonaws.com/media/ch_01hq3x9k2m7c4v8b6n5t/msg_7q2w9e4r6t1y3u5i8o0p/0?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=604800',
      expiresAt: '2026-11-28T10:00:00.000Z',
      providerMediaId: '1234567890123456',
    },
  ],
  createdAt: at,
  history: [{ status: 'received', at }],
};

const project = {
  projectId: ids.projectId,
  companyId: 1042,
  name: 'Acme',
  monthlyBotCredits: 100,
  contactEmail: 'ops@acme.example',
  limits: { sendsPerSecond: 50, eventsPerSecond: null },
  externalId: 'sbx_q8Zt3kLw9xR2mV7nB4cY1dF6',
  portal: { allowedOrigins: ['https://app.acme.example'] },
};
const channel = {
  channelId: ids.channelId,
  type: 'sms',
  name: 'Alerts',
  address: '+5511977776666',
  provider: { kind: 'sandbox' },
  credits: 100,
  pace: { perSecond: 10 },
  createdAt: at,
};
const integration = {
  integrationId: ids.integrationId,
  product: 'webhook',
  scope: 'general',
  channelId: null,
  url: 'https://example.com/webhooks/switchboard',
  destination: { type: 'http' },
  eventTypes: null,
  rateLimitPerSecond: null,
  ordering: 'conversation',
  signature: 'v1a',
  publicKey: 'whpk_mSyqOYs0eNxyU6LBbM2rdq4QgwcqXF2LTbr5Ux4cWZM=',
  filter: { all: [{ field: 'channel.type', op: 'in', value: ['whatsapp', 'sms'] }] },
  enabled: true,
  disabledReason: null,
  hasBearerToken: true,
  createdAt: at,
  updatedAt: at,
};
const delivery = {
  deliveryId: ids.deliveryId,
  eventId: ids.eventId,
  eventType: 'message.sent',
  status: 'succeeded',
  attempts: [{ at, statusCode: 200, durationMs: 84 }],
};
const bot = {
  botId: ids.botId,
  projectId: ids.projectId,
  name: 'Support',
  instructions: 'Answer in one short sentence using the knowledge base.',
  model: null,
  temperature: null,
  createdAt: at,
  updatedAt: at,
};
const managementKey = {
  keyId: ids.keyId,
  name: 'Deploy script',
  role: 'developer',
  createdAt: at,
  lastUsedAt: later,
};
const auditEntry = {
  id: 'aud_5t6y0u4f8k2m9q1w7e3r',
  at: later,
  actor: { kind: 'key', id: ids.keyId },
  action: 'PATCH /admin/v1/projects/{projectId}/bots/{botId}',
  target: ids.botId,
  requestId: 'req-7f3a9c',
  changes: { temperature: [null, 0.2] },
};
const knowledgeFile = {
  fileName: ids.fileName,
  status: 'ready',
  chunks: 3,
  contentType: 'text/markdown',
  bytes: 2048,
  uploadedAt: at,
  updatedAt: later,
};
const fontes = [{ procedencia: ids.fileName, score: 0.82 }];

/** One example per named schema of the document (`components.schemas`), keyed by its name. */
export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  Project: project,
  ApiTokenState: { active: true, issuedAt: at },
  ShownOnceToken: { token: 'sbk_3Jx9QmT2vLw8rK4pZ7nB1cY6dF0hG5sA' },
  BotCredits: { disponivel: 95, mes: '11/2026' },
  BotCreditUsage: {
    mes: '11/2026',
    disponivel: 95,
    allowance: 100,
    granted: 0,
    days: [
      { day: 1, charged: 3, refunded: 0 },
      { day: 2, charged: 2, refunded: 0 },
    ],
  },
  Channel: channel,
  OutboxMessage: {
    messageId: ids.messageId,
    to: '+5511988887777',
    payload: { to: '+5511988887777', body: 'Your order has shipped' },
    sentAt: at,
  },
  EventAccepted: { eventId: ids.eventId },
  SendResult: { success: true, messageId: ids.messageId, status: 'sent', channel: { id: ids.channelId, type: 'sms' } },
  ScheduledResult: { success: true, messageId: ids.messageId, status: 'scheduled', sendAt: '2026-12-24T12:00:00.000Z' },
  BatchAccepted: {
    success: true,
    batchId: 'batch_3k5m7p9r1t3v5x7z9b1d',
    items: [
      { index: 0, messageId: ids.messageId, status: 'queued' },
      {
        index: 1,
        status: 'refused',
        error: { code: 'RECIPIENT_OPTED_OUT', message: 'A recipient opted out of this channel.' },
      },
    ],
  },
  BatchProgress: {
    batchId: 'batch_3k5m7p9r1t3v5x7z9b1d',
    total: 2,
    createdAt: at,
    counts: { queued: 0, sent: 1, failed: 0, scheduled: 0, canceled: 0, refused: 1 },
  },
  MessageStatus: {
    success: true,
    messageId: ids.messageId,
    conversationId,
    direction: 'outbound',
    status: 'delivered',
    channel: { id: ids.channelId, type: 'sms' },
    to: '+5511988887777',
    contact: '+5511988887777',
    text: 'Your order has shipped',
    createdAt: at,
    history: [
      { status: 'sent', at },
      { status: 'delivered', at: later },
    ],
  },
  StoredMessageMedia: receivedMessage.media[0],
  ConversationMessage: receivedMessage,
  ConversationMessagePage: { items: [receivedMessage] },
  PolledEvents: {
    items: [
      {
        id: ids.eventId,
        type: 'message.sent',
        timestamp: at,
        projectId: ids.projectId,
        companyId: 1042,
        channel: { id: ids.channelId, type: 'sms', address: '+5511977776666' },
        data: { messageId: ids.messageId },
      },
    ],
    nextCursor: 'djEuY3Vyc29yLmV4YW1wbGU',
    done: true,
  },
  Conversation: {
    conversationId,
    contact: '5511988887777',
    window: { open: true, closesAt: '2026-11-22T10:00:00.000Z' },
    optedOut: false,
  },
  Suppression: { contact: '+5511988887777', reason: 'keyword', at, keyword: 'STOP' },
  ScheduledMessagePage: {
    items: [{ messageId: ids.messageId, to: '+5511988887777', sendAt: '2026-12-24T12:00:00.000Z', createdAt: at }],
  },
  BatchPage: { items: [{ batchId: 'batch_3k5m7p9r1t3v5x7z9b1d', total: 2, createdAt: at }] },
  SuppressionPage: { items: [{ contact: '+5511988887777', reason: 'keyword', at, keyword: 'STOP' }] },
  Integration: integration,
  CreatedIntegration: {
    ...integration,
    ordering: 'none',
    signature: 'v1',
    publicKey: null,
    filter: null,
    signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  },
  UpdatedIntegration: integration,
  SigningSecret: { signingSecret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' },
  Delivery: delivery,
  RecoverAccepted: { recovered: 12 },
  RetryAccepted: { deliveryId: ids.deliveryId, status: 'pending' },
  WebhookHealth: {
    succeeded: 41,
    failed: 1,
    hours: [
      { hour: '2026-11-21T09:00:00.000Z', succeeded: 20, failed: 1, medianLatencyMs: 100 },
      { hour: '2026-11-21T10:00:00.000Z', succeeded: 21, failed: 0, medianLatencyMs: 50 },
    ],
  },
  Bot: bot,
  ManagementKey: managementKey,
  ManagementKeyCreated: {
    keyId: ids.keyId,
    key: 'sbm_Jq3v9XkP0b2LmT7wZ4cR8nH1sD6fG5yA0eU3iO9pQ2t',
    name: 'Deploy script',
    role: 'developer',
    createdAt: at,
  },
  ManagementKeyPage: { items: [managementKey] },
  PortalLink: {
    url: `https://switchboard.acme.example/portal?project=${ids.projectId}#code=sbp_x2Vq0sJ9bQ1rT5uY8wZ3aC6dF0gH2jK4mN7pR9sT1vW`,
    expiresAt: '2026-11-21T11:00:00.000Z',
  },
  AuditEntry: auditEntry,
  AuditPage: { items: [auditEntry], nextCursor: 'WyJrM2Y5YTFiMiIsIjIwMjYtMTEtMjFUMTA6MDU6MDAuMDAwWiJd' },
  Caller: {
    kind: 'portal',
    projectId: ids.projectId,
    role: 'viewer',
    expiresAt: '2026-11-21T11:00:00.000Z',
    csrfToken: '3f6b0c2e9a1d4f7b8c5e2a0d9f6b3c1e7a4d0f8b5c2e9a6d3f0b7c4e1a8d5f2b',
  },
  KnowledgeFile: knowledgeFile,
  KnowledgeFilePage: { items: [knowledgeFile], nextCursor: 'WyJGSUxFI2ZhcS5tZCJd' },
  KnowledgeUploadAccepted: { fileName: ids.fileName, status: 'processing' },
  KnowledgeUploadUrl: {
    uploadUrl: 'https://switchboard-uploads.s3.amazonaws.com/',
    method: 'POST',
    fields: {
      key: `knowledge/${ids.botId}/catalog.pdf`,
      'Content-Type': 'application/pdf',
      Policy: 'eyJleHBpcmF0aW9uIjoi…',
    },
    expiresAt: '2026-11-21T10:15:00.000Z',
    maxBytes: 26214400,
  },
  SearchResult: {
    success: true,
    trechos: [
      { texto: 'Refunds take five business days after the return arrives.', procedencia: ids.fileName, score: 0.82 },
    ],
  },
  Fontes: fontes,
  CompletionResult: {
    success: true,
    result: 'Refunds take five business days after the return arrives.',
    usage: { inputTokens: 412, outputTokens: 14 },
    fontes,
  },
  ChatCompletion: {
    id: 'chatcmpl-9f2k4m6q8w0e',
    object: 'chat.completion',
    created: 1795341600,
    model: ids.botId,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Five business days after the return arrives.',
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 412, completion_tokens: 11, total_tokens: 423 },
    fontes,
  },
  ChatCompletionChunk: {
    id: 'chatcmpl-9f2k4m6q8w0e',
    object: 'chat.completion.chunk',
    created: 1795341600,
    model: ids.botId,
    choices: [{ index: 0, delta: { content: 'Five business' }, logprobs: null, finish_reason: null }],
  },
  ModelList: {
    object: 'list',
    data: [{ id: ids.botId, object: 'model', created: 1795341600, owned_by: ids.projectId }],
  },
  Model: { id: ids.botId, object: 'model', created: 1795341600, owned_by: ids.projectId },
  EmbeddingList: {
    object: 'list',
    data: [
      { object: 'embedding', index: 0, embedding: [0.0132, -0.0841, 0.0457] },
      { object: 'embedding', index: 1, embedding: [-0.0211, 0.0093, 0.0718] },
    ],
    model: 'default',
    usage: { prompt_tokens: 8, total_tokens: 8 },
  },
  Response: {
    id: 'resp_9f2k4m6q8w0e',
    object: 'response',
    created_at: 1795341600,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: ids.botId,
    output: [
      {
        id: 'msg_9f2k4m6q8w0e',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Five business days after the return arrives.', annotations: [], logprobs: [] },
        ],
      },
    ],
    store: false,
    usage: {
      input_tokens: 412,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 11,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 423,
    },
  },
  ExtractResult: { success: true, result: 'Invoice 42\nTotal: R$ 100,00' },
  ExtractUpload: {
    success: true,
    uploadUrl: 'https://switchboard-uploads.s3.amazonaws.com/',
    method: 'POST',
    fields: {
      key: `extract/${ids.projectId}/5f2c9e.pdf`,
      'Content-Type': 'application/pdf',
      Policy: 'eyJleHBpcmF0aW9uIjoi…',
    },
    fileKey: `extract/${ids.projectId}/5f2c9e.pdf`,
    expiresAt: '2026-11-21T10:15:00.000Z',
    maxBytes: 26214400,
  },
  Health: {
    success: true,
    companyId: 1042,
    botrag: { ok: true, latenciaMs: 12 },
    creditos: { disponivel: 95, mes: '11/2026' },
    checkedAt: at,
  },
  ErrorResponse: {
    success: false,
    error: 'VALIDATION_ERROR',
    message: 'The request is invalid.',
    details: [{ path: 'name', message: 'Too small: expected string to have >=1 characters', code: 'too_small' }],
    requestId: 'req_5b8c2d1e9f7a',
  },
  OpenAiError: {
    error: {
      message: 'The model `bot_missing` does not exist.',
      type: 'invalid_request_error',
      param: 'model',
      code: 'model_not_found',
    },
  },
};
