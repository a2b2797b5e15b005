import type { FunctionAccess } from './access.ts';

/**
 * The route table: every public route, the function that serves it, and its limits. infra/ builds one API Gateway
 * method and one Lambda per function from it; local/ routes requests with it. A function's code lives in
 * `functions/<fn>/handler.ts` and exports `handler`.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway resource path: `{name}` is one segment, `{proxy+}` the rest of the path. */
  path: string;
  /** Folder under functions/. */
  fn: string;
  /** Lambda timeout; API Gateway's integration timeout is set just under it (ms). */
  timeoutSeconds: number;
  memoryMb: number;
  /** What the function touches: infra/ grants exactly this (IAM) and sets the matching environment. */
  access?: FunctionAccess;
  /**
   * V8 old-space cap (MB) for functions whose peak memory is mostly heap that V8 would otherwise let grow with the
   * function's memory setting (extract: a 25 MB text PDF stays under 512 MB RSS with 256).
   */
  maxOldSpaceMb?: number;
  /**
   * The function streams its response (`awslambda.streamifyResponse`): the REST API integration's response transfer
   * mode is STREAM on AWS, and the local gateway writes each piece as the function produces it.
   */
  responseStreaming?: boolean;
  /** Largest request body (bytes) the route takes; the local gateway refuses more without buffering it. */
  maxBodyBytes?: number;
}

export interface FunctionSettings {
  timeoutSeconds: number;
  memoryMb: number;
}

/** The model routes' access: the table (token, bot, credits), the bot's knowledge, the model and its key. */
const modelCallAccess: FunctionAccess = {
  table: { read: true, write: true },
  buckets: { knowledge: { read: [''] } },
  bedrock: { invoke: true },
  secrets: ['modelApiKey'],
};

export const routes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/api/v1/ai/health',
    fn: 'health',
    timeoutSeconds: 10,
    memoryMb: 512,
    access: {
      table: { read: true, write: true },
      buckets: { knowledge: { list: true } },
      bedrock: { countTokens: true },
      secrets: ['modelApiKey'],
    },
  },
  // timeoutMs goes up to 90 s: the Lambda gets 90 s + 10 s for the bot read, the charge, the refund and the answer.
  // 1,024 MB (with chat and responses): the bot's knowledge comes through search's bounded path (caches of 102 MB),
  // so the memory is the model call's and the answer's, whatever the bot's size.
  {
    method: 'POST',
    path: '/api/v1/ai/completion',
    fn: 'completion',
    timeoutSeconds: 100,
    memoryMb: 1024,
    access: modelCallAccess,
  },
  // OpenAI's Chat Completions over the same use case as completion. Streamed (first byte with the first token), so
  // the integration is not bound by the 29 s buffered limit: a long answer may stream for up to 5 minutes.
  {
    method: 'POST',
    path: '/api/v1/ai/chat/completions',
    fn: 'chat-completions',
    timeoutSeconds: 300,
    memoryMb: 1024,
    responseStreaming: true,
    access: modelCallAccess,
  },
  // OpenAI's Responses API over the same use case, streamed as chat is.
  {
    method: 'POST',
    path: '/api/v1/ai/responses',
    fn: 'responses',
    timeoutSeconds: 300,
    memoryMb: 1024,
    responseStreaming: true,
    access: modelCallAccess,
  },
  {
    method: 'GET',
    path: '/api/v1/ai/models',
    fn: 'models',
    timeoutSeconds: 10,
    memoryMb: 512,
    access: { table: { read: true, write: true } },
  },
  {
    method: 'GET',
    path: '/api/v1/ai/models/{id}',
    fn: 'models',
    timeoutSeconds: 10,
    memoryMb: 512,
    access: { table: { read: true, write: true } },
  },
  // Up to 2,048 inputs per request and credit; Titan takes one text per call (8 in flight): 60 s covers the most.
  {
    method: 'POST',
    path: '/api/v1/ai/embeddings',
    fn: 'embeddings',
    timeoutSeconds: 60,
    memoryMb: 1024,
    access: { table: { read: true, write: true }, bedrock: { invoke: true } },
  },
  // Search reads a bot's index by range and holds at most its caches (a tenth of this memory, and 384 MB of /tmp)
  // whatever the bot's size: under 400 MB in all at 1 GB of text (bench/knowledge-gb.ts). 1,769 MB is for the CPU
  // (one full vCPU): scoring long posting lists and unpacking text blocks are CPU-bound.
  {
    method: 'POST',
    path: '/api/v1/ai/search',
    fn: 'search',
    timeoutSeconds: 15,
    memoryMb: 1769,
    access: {
      table: { read: true, write: true },
      buckets: { knowledge: { read: ['bots/'] } },
      bedrock: { invoke: true },
    },
  },
  // Scanned pages are OCRed (Textract in parallel on AWS): 120 s for a long scan; memory from the 25 MB PDF peak RSS.
  {
    method: 'POST',
    path: '/api/v1/ai/extract',
    fn: 'extract',
    timeoutSeconds: 120,
    memoryMb: 1769,
    maxOldSpaceMb: 256,
    access: {
      table: { read: true, write: true },
      textract: true,
      buckets: { transfer: { read: ['uploads/extract/'], delete: ['uploads/extract/'] } },
    },
  },
  // Presigns a POST into the transfer bucket (signed with this function's credentials: it needs the write grant).
  {
    method: 'POST',
    path: '/api/v1/ai/extract/uploads',
    fn: 'extract-uploads',
    timeoutSeconds: 10,
    memoryMb: 512,
    access: { table: { read: true, write: true }, buckets: { transfer: { write: ['uploads/extract/'] } } },
  },
  {
    method: 'ANY',
    path: '/admin/v1/{proxy+}',
    fn: 'admin',
    timeoutSeconds: 30,
    memoryMb: 1024,
    access: {
      // gsi1: the project listing; gsi4: a conversation's messages (the console); gsi3: a webhook's failed
      // deliveries (recover).
      table: { read: true, write: true, indexes: ['gsi1', 'gsi3', 'gsi4'] },
      secrets: ['adminKey', 'secretsKey'],
      sendTo: ['ingest', 'events', 'deliveries', 'deliveriesOrdered'],
      buckets: {
        knowledge: { read: ['bots/'], write: ['bots/'], delete: ['bots/'], list: true },
        // media/: the console's media previews are presigned here.
        transfer: { write: ['payloads/'], read: ['media/'] },
      },
    },
  },
  // The console, the portal page (framable by the project's allowed origins: one project read), the API reference
  // and the OpenAPI document, served from the files shipped beside the function.
  ...['/console', '/console/{proxy+}', '/portal', '/docs', '/openapi.json'].map(
    (path): RouteDefinition => ({
      method: 'GET',
      path,
      fn: 'console',
      timeoutSeconds: 10,
      memoryMb: 256,
      access: { table: { read: true } },
    }),
  ),
  // Providers get 10 s per call (WhatsApp: a text then up to 10 files); 30 s covers a slow multi-part send.
  {
    method: 'POST',
    path: '/api/integration/generic',
    fn: 'send',
    timeoutSeconds: 30,
    memoryMb: 512,
    access: {
      table: { read: true, write: true },
      // outbound: a send with `sendAt` due within minutes is queued at once.
      sendTo: ['events', 'outbound'],
      buckets: { transfer: { write: ['payloads/'] } },
      secrets: ['secretsKey'],
      ses: { send: true },
    },
  },
  // Up to 1,000 sends accepted at once (10 MB): each item checked, written and queued; none sent here.
  {
    method: 'POST',
    path: '/api/integration/generic/batch',
    fn: 'send-batch',
    timeoutSeconds: 30,
    memoryMb: 1024,
    access: { table: { read: true, write: true }, sendTo: ['outbound'], secrets: ['secretsKey'] },
  },
  {
    method: 'GET',
    path: '/api/integration/batches/{batchId}',
    fn: 'send-batch',
    timeoutSeconds: 30,
    memoryMb: 1024,
    access: { table: { read: true, write: true }, sendTo: ['outbound'], secrets: ['secretsKey'] },
  },
  { method: 'ANY', path: '/api/integration/send', fn: 'legacy-send', timeoutSeconds: 5, memoryMb: 256, access: {} },
  // Channel ingress: message status for the send API.
  // Signs media URLs afresh: a presigned GET works only if its signer may read the object.
  {
    method: 'GET',
    path: '/api/integration/messages/{messageId}',
    fn: 'message-status',
    timeoutSeconds: 10,
    memoryMb: 256,
    // Writes its custom token's rate-limit bucket.
    // Cancels and moves scheduled sends (a move due soon is queued at once).
    access: { table: { read: true, write: true }, sendTo: ['outbound'], buckets: { transfer: { read: ['media/'] } } },
  },
  {
    method: 'DELETE',
    path: '/api/integration/messages/{messageId}',
    fn: 'message-status',
    timeoutSeconds: 10,
    memoryMb: 256,
    // Writes its custom token's rate-limit bucket.
    // Cancels and moves scheduled sends (a move due soon is queued at once).
    access: { table: { read: true, write: true }, sendTo: ['outbound'], buckets: { transfer: { read: ['media/'] } } },
  },
  {
    method: 'PATCH',
    path: '/api/integration/messages/{messageId}',
    fn: 'message-status',
    timeoutSeconds: 10,
    memoryMb: 256,
    // Writes its custom token's rate-limit bucket.
    // Cancels and moves scheduled sends (a move due soon is queued at once).
    access: { table: { read: true, write: true }, sendTo: ['outbound'], buckets: { transfer: { read: ['media/'] } } },
  },
  // Polling: a poller's page of its project's events (one GetItem for its token, one for its rules, a few Queries).
  {
    method: 'GET',
    path: '/api/integration/events',
    fn: 'events-poll',
    timeoutSeconds: 10,
    memoryMb: 512,
    access: {
      // Writes its poller's rate-limit bucket.
      table: { read: true, write: true },
      buckets: { transfer: { read: ['payloads/'] } },
      secrets: ['secretsKey'],
    },
  },
  // Conversations: a contact's window and opt-out, and its messages (the conversation index).
  {
    method: 'GET',
    path: '/api/integration/conversations/{contact}',
    fn: 'conversations',
    timeoutSeconds: 10,
    memoryMb: 256,
    access: {
      // Writes its custom token's rate-limit bucket.
      table: { read: true, write: true, indexes: ['gsi4'] },
      buckets: { transfer: { read: ['media/'] } },
      secrets: ['secretsKey'],
    },
  },
  {
    method: 'GET',
    path: '/api/integration/conversations/{contact}/messages',
    fn: 'conversations',
    timeoutSeconds: 10,
    memoryMb: 256,
    access: {
      // Writes its custom token's rate-limit bucket.
      table: { read: true, write: true, indexes: ['gsi4'] },
      buckets: { transfer: { read: ['media/'] } },
      secrets: ['secretsKey'],
    },
  },
  // Public inbound addresses: the provider's signature is the authentication. One GetItem + one SQS send per request.
  {
    method: 'POST',
    path: '/inbound/twilio/{channelId}',
    fn: 'inbound-twilio',
    timeoutSeconds: 10,
    memoryMb: 256,
    maxBodyBytes: 1024 * 1024,
    access: {
      table: { read: true },
      sendTo: ['inboundOrdered'],
      buckets: { transfer: { write: ['payloads/inbound/'] } },
      secrets: ['secretsKey'],
    },
  },
  // Meta batches up to 3 MB per webhook.
  {
    method: 'GET',
    path: '/inbound/whatsapp/{channelId}',
    fn: 'inbound-whatsapp',
    timeoutSeconds: 10,
    memoryMb: 256,
    access: { table: { read: true }, secrets: ['secretsKey'] },
  },
  {
    method: 'POST',
    path: '/inbound/whatsapp/{channelId}',
    fn: 'inbound-whatsapp',
    timeoutSeconds: 10,
    memoryMb: 256,
    maxBodyBytes: 3 * 1024 * 1024,
    access: {
      table: { read: true },
      sendTo: ['inboundOrdered'],
      buckets: { transfer: { write: ['payloads/inbound/'] } },
      secrets: ['secretsKey'],
    },
  },
  // End of channel ingress.
];

/** Media types API Gateway must pass as binary (base64). JSON is never binary. */
// Knowledge uploads (text/plain, text/markdown, text/html) travel as bytes too, so a Windows-1252 file arrives intact.
export const binaryMediaTypes = [
  'multipart/form-data',
  'application/pdf',
  'application/octet-stream',
  'text/plain',
  'text/markdown',
  'text/html',
];

/** Function that answers 404 NOT_FOUND / 405 METHOD_NOT_ALLOWED for paths and methods no route serves. */
export const fallbackFunction = 'fallback';
