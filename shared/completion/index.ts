/** Completion: the one generation use case behind /completion, /chat/completions and the OpenAI format, and its errors. */
export {
  CallerGone,
  type CompleteTextDeps,
  type CompletionCaller,
  type CompletionInput,
  type CompletionLog,
  type CompletionOutput,
  type CompletionSource,
  type CompletionStream,
  type CompletionStreamEvent,
  type FinishReason,
  KNOWLEDGE_EXCERPTS,
  KNOWLEDGE_QUERY_CHARS,
  makeCompleteText,
  sourcesOf,
} from './complete-text.ts';
export { GenerationFailedError, GenerationTimeoutError } from './errors.ts';
export { type JsonAnswer, parseJsonAnswer } from './json-answer.ts';
export { composeSystemPrompt, JSON_OUTPUT_RULE } from './system-prompt.ts';
export { completionSettings } from './settings.ts';
