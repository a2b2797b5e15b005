/**
 * Examples for the OpenAPI document: the ids every example uses, the path parameters by name, and one request per
 * operation that takes a body (the answers' examples, one per named schema, are in schema-examples.ts). `test/unit/openapi-document.test.ts` checks each against its schema, so an example
 * that drifts from the code fails there. The ids are of the shapes the service makes (`prj_` + 20 base-36
 * characters...), shared with the event catalog's examples.
 */

export const EXAMPLE_IDS = {
  projectId: 'prj_01hq3x9k2m7c4v8b6n5s',
  channelId: 'ch_01hq3x9k2m7c4v8b6n5t',
  integrationId: 'int_4f8k2m9q1w7e3r5t6y0u',
  customIntegrationId: 'int_9z8x7c6v5b4n3m2l1k0j',
  botId: 'bot_7h2j4k6l8m0n1b3v5c7x',
  messageId: 'msg_2w4e6r8t0y1u3i5o7p9a',
  eventId: 'evt_0mkfj2k9sa1b2c3d4e5f6g7',
  deliveryId: 'dlv_0mkfj2k9sa1b2c3d4e5f6g7x3kq9a',
  fileName: 'refunds.md',
  keyId: 'key_3m9q1w7e3r5t6y0u4f8k',
  sessionId: 'pss_8b6n5s01hq3x9k2m7c4v',
} as const;

const ids = EXAMPLE_IDS;
/** The time every example is stamped with, and a few minutes later. */
export const EXAMPLE_AT = '2026-11-21T10:00:00.000Z';
export const EXAMPLE_LATER = '2026-11-21T10:05:00.000Z';

/** Path parameters by name: what they are and one value. */
export const PATH_PARAMETERS: Record<string, { description: string; example: string }> = {
  projectId: { description: 'The project id (`prj_…`).', example: ids.projectId },
  channelId: { description: 'The channel id (`ch_…`).', example: ids.channelId },
  integrationId: { description: 'The integration id (`int_…`).', example: ids.integrationId },
  deliveryId: { description: 'The delivery id (`dlv_…`), from the delivery log.', example: ids.deliveryId },
  botId: { description: 'The bot id (`bot_…`).', example: ids.botId },
  keyId: { description: 'The project key id (`key_…`).', example: ids.keyId },
  messageId: { description: 'The message id (`msg_…`) the send answered.', example: ids.messageId },
  batchId: { description: 'The batch id (`batch_…`) the batch send answered.', example: 'batch_3k5m7p9r1t3v5x7z9b1d' },
  id: { description: 'The model id: a bot id (`bot_…`) of the token’s project.', example: ids.botId },
  fileName: {
    description: 'The knowledge file name (as `procedencia` shows it in search results); URL-encoded.',
    example: ids.fileName,
  },
  contact: {
    description:
      'The contact as the channel writes addresses: WhatsApp digits (a leading `+` is dropped), SMS E.164 (`%2B5511…`), an email address.',
    example: '5511988887777',
  },
};

/** One request body per operation that takes one (JSON unless the operation says otherwise), by operationId. */
export const REQUEST_EXAMPLES: Record<string, unknown> = {
  createProjectKey: { name: 'Deploy script', role: 'developer' },
  createPortalSession: { role: 'viewer', ttlSeconds: 3600 },
  verifyPortalCode: { code: 'sbp_x2Vq0sJ9bQ1rT5uY8wZ3aC6dF0gH2jK4mN7pR9sT1vW', projectId: ids.projectId },
  createProject: { companyId: 1042, name: 'Acme', monthlyBotCredits: 100, contactEmail: 'ops@acme.example' },
  updateProject: { contactEmail: 'oncall@acme.example', limits: { sendsPerSecond: 50 } },
  grantBotCredits: { amount: 50 },
  createChannel: { type: 'sms', name: 'Alerts', address: '+5511977776666', credits: 100 },
  addChannelCredits: { amount: 100 },
  updateChannel: { optOutKeywords: ['STOP', 'SAIR', 'PARE'], optInKeywords: ['VOLTAR'] },
  simulateInboundMessage: { from: '+5511988887777', text: 'Where is my order?' },
  simulateDeliveryStatus: { messageId: ids.messageId, status: 'delivered' },
  createIntegration: {
    product: 'webhook',
    scope: 'general',
    url: 'https://example.com/webhooks/switchboard',
    bearerToken: 'my-receiver-token',
  },
  updateIntegration: {
    eventTypes: ['message.received', 'message.failed'],
    ordering: 'conversation',
    signature: 'v1a',
    filter: { all: [{ field: 'channel.type', op: 'in', value: ['whatsapp', 'sms'] }] },
    enabled: true,
  },
  recoverDeliveries: { since: '2026-11-20T00:00:00.000Z', until: '2026-11-21T00:00:00.000Z' },
  reportEvent: { channelId: ids.channelId, type: 'message.sent', data: { messageId: ids.messageId } },
  createBot: { name: 'Support', instructions: 'Answer in one short sentence using the knowledge base.' },
  updateBot: { temperature: 0.2 },
  uploadKnowledgeFile: '# Refunds\n\nRefunds take five business days after the return arrives.\n',
  createKnowledgeUploadUrl: { contentType: 'application/pdf' },
  sendMessage: { to: '+5511988887777', body: 'Your order has shipped' },
  sendBatch: {
    messages: [
      { to: '+5511988887777', body: 'Your order has shipped' },
      { to: '+5511988886666', body: 'Your order has shipped', sendAt: '2026-12-24T09:00:00-03:00' },
    ],
  },
  updateScheduledMessage: { sendAt: '2026-12-24T09:00:00-03:00' },
  createCompletion: { botId: ids.botId, prompt: 'How long do refunds take?' },
  createChatCompletion: { model: ids.botId, messages: [{ role: 'user', content: 'How long do refunds take?' }] },
  searchKnowledge: { botId: ids.botId, query: 'how long do refunds take', topK: 3 },
  createResponse: { model: ids.botId, input: 'How long do refunds take?' },
  createEmbeddings: { model: 'default', input: ['refund policy', 'shipping times'] },
  extractPdf: { file: '(the PDF bytes)', mode: 'text' },
  createExtractUpload: {},
  receiveTwilioCallback: { AccountSid: 'AC0123456789', MessageSid: 'SM0123456789', MessageStatus: 'delivered' },
  receiveWhatsAppWebhook: { object: 'whatsapp_business_account', entry: [] },
  'extractPdf application/json': { fileKey: `extract/${ids.projectId}/5f2c9e.pdf`, mode: 'pages' },
};
