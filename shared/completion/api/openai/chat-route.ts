import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../../../contract/api-docs.ts';
import { parameterTableMarkdown } from '../../../models/index.ts';
import { chatCompletionChunk, chatCompletionResult } from '../schemas.ts';
import { chatCompletionRequest, parseChatRequest } from './chat-request.ts';
import { chatCompletion, newChatIdentity } from './chat-response.ts';
import { chatEventStream } from './chat-stream.ts';
import type { OpenAiExchange } from './generation-route.ts';
import { toOpenAiError } from './openai-errors.ts';

/**
 * `POST /api/v1/ai/chat/completions`: OpenAI's Chat Completions over a project's bots (`model` is the botId), with
 * the caller's functions (tools) and JSON Schema answers, 1 bot credit per request; refunded when the model fails or
 * produces nothing, kept once the model was called however the caller leaves. With `stream: true`, the answer as
 * `chat.completion.chunk` events then `data: [DONE]`.
 */
export function chatCompletionsExchange(limits: { maxOutputTokens: number }) {
  return (body: Record<string, unknown>): OpenAiExchange => {
    const request = parseChatRequest(body, limits);
    const chat = newChatIdentity(request.completion.botId);
    return {
      completion: request.completion,
      stream: request.stream,
      answer: (output) => chatCompletion(chat, output),
      events: (stream) =>
        chatEventStream(chat, stream, {
          includeUsage: request.includeUsage,
          errorBody: (error) => ({ error: toOpenAiError(error).error }),
        }),
    };
  };
}

/** The route in the API reference (the OpenAPI document). */
export function chatCompletionsDocs(): PublicOperationDocs {
  return {
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
          body: chatCompletionResult,
          eventStream: chatCompletionChunk,
        },
      },
      errors: {
        ...JSON_BODY_ERRORS,
        ...BOTS_API_AUTH_ERRORS,
        402: ['ERR_NO_BOT_CREDITS'],
        403: ['BOT_FORBIDDEN'],
        404: ['BOT_NOT_FOUND'],
        502: ['GENERATION_FAILED'],
        504: ['GATEWAY_TIMEOUT'],
      },
    },
  };
}
