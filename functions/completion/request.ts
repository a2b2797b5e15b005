/** The completion request lives in `shared/completion/completion-request.ts` (the OpenAPI document uses it too). */
export {
  COMPLETION_LIMITS,
  completionRequest,
  parseCompletionRequest,
  type CompletionRequest,
} from '#shared/completion/completion-request.ts';
