/**
 * Answer bodies as the API returns them, written as zod schemas so the OpenAPI document shows them and tests can
 * check real answers against them (`test/e2e/openapi.test.ts`). Each area keeps its own in `<area>/api/schemas.ts`;
 * this is their one list for the document and the console's types. Request bodies are never redefined: they come
 * from the routes and handlers that validate them.
 */
export * from '../http/wire-schemas.ts';
export { apiTokenState, project, projectPage, shownOnceToken } from '../projects/index.ts';
export { botCredits, botCreditUsage } from '../credits/index.ts';
export {
  channel,
  channelPage,
  channelType,
  conversation,
  conversationMessage,
  conversationMessagePage,
  eventAccepted,
  messageMedia,
  messageStatus,
  outboxMessage,
  outboxPage,
  sendResult,
  suppression,
  suppressionPage,
} from '../messaging/index.ts';
export {
  createdIntegration,
  integration,
  integrationPage,
  signingSecret,
  updatedIntegration,
} from '../integrations/index.ts';
export { delivery, deliveryPage, recoverAccepted, retryAccepted, webhookHealth } from '../webhooks/index.ts';
export { bot, botPage } from '../bots/index.ts';
export {
  knowledgeFile,
  knowledgeFilePage,
  knowledgeUploadAccepted,
  knowledgeUploadUrl,
  searchResult,
} from '../knowledge/index.ts';
export { openAiErrorBody } from '../completion/index.ts';
export { extractResult, extractUpload } from '../extract/index.ts';
export { healthResult } from '../health/index.ts';
