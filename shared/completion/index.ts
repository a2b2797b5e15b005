/**
 * Completion: the one generation use case behind `POST /api/v1/ai/completion`, Chat Completions and Responses, and
 * the OpenAI wire format (those routes, embeddings and models, their error body). The only way into the area from
 * outside it.
 */
export { completionSettings } from './settings.ts';
export {
  type CompletionPorts,
  wireChatCompletions,
  wireCompletion,
  wireEmbeddings,
  wireModels,
  wireResponses,
} from './wiring.ts';
export { completionPublicDocs } from './api/docs.ts';
export { openAiCodeFor } from './api/openai/error-codes.ts';
export { openAiErrors } from './api/openai/openai-errors.ts';
export { openAiErrorBody } from './api/schemas.ts';
// The use case's errors, for the HTTP error table's test (test/unit/http/domain-errors.test.ts).
export { GenerationFailedError, GenerationTimeoutError } from './errors.ts';
// The system prompt, for the completion bench; the request parsers and their limits, for the fuzzers
// (test/support/fuzzers-openai.ts) and the document's test.
export { composeSystemPrompt } from './system-prompt.ts';
export { parseCompletionRequest } from './api/completion-request.ts';
export { parseChatRequest } from './api/openai/chat-request.ts';
export { parseResponsesRequest } from './api/openai/responses-request.ts';
export { selfContainedMessageId } from './api/openai/self-contained-ids.ts';
export { CONVERSATION_MAX_CHARS, jsonChars } from './api/openai/request-budget.ts';
export { OpenAiRequestError } from './api/openai/request-errors.ts';
export type { OpenAiCompletion } from './api/openai/request-rules.ts';
