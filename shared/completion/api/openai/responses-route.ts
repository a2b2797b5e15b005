import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../../../contract/api-docs.ts';
import { responseObject, responseStreamEvent } from '../schemas.ts';
import type { OpenAiExchange } from './generation-route.ts';
import { toOpenAiError } from './openai-errors.ts';
import { parseResponsesRequest, responsesRequest } from './responses-request.ts';
import { newResponseIdentity, responseEventStream, responseOf } from './responses-response.ts';

/**
 * `POST /api/v1/ai/responses`: OpenAI's Responses API over a project's bots, stateless: the same use case, auth, rate
 * limit, credits, bot resolution, knowledge and refunds as chat completions; streamed as OpenAI's named events.
 */
export function responsesExchange(limits: { maxOutputTokens: number }) {
  return (body: Record<string, unknown>): OpenAiExchange => {
    const request = parseResponsesRequest(body, limits);
    const identity = newResponseIdentity();
    return {
      completion: request.completion,
      stream: request.stream,
      answer: (output) => responseOf(identity, request, output),
      events: (stream) =>
        responseEventStream(identity, request, stream, (error) => {
          const { error: body } = toOpenAiError(error);
          return { code: body.code, message: body.message, param: body.param };
        }),
    };
  };
}

/** The route in the API reference (the OpenAPI document). */
export function responsesDocs(): PublicOperationDocs {
  return {
    'POST /api/v1/ai/responses': {
      summary: "OpenAI's Responses API with a bot as the model, stateless (1 bot credit)",
      description:
        '`input` is a string or items (messages, `function_call`, `function_call_output`; an `item_reference` to a ' +
        'non-streamed answer’s message, whose id carries its text); `instructions`, function `tools`, `tool_choice`, ' +
        '`text.format` (`text`, `json_object`, `json_schema`), `max_output_tokens` (clamped to `BOT_MAX_OUTPUT_TOKENS`), ' +
        '`temperature`, `top_p`, `stream` (OpenAI’s named events, `response.created` first, `response.completed` last). ' +
        'Nothing is stored: `previous_response_id`, `store: true`, `background`, `conversation` and built-in tools are ' +
        '400 `unsupported_parameter`. Same auth, rate limit, credits, bot resolution, knowledge, parameter rules and ' +
        'refunds as chat completions.',
      operationId: 'createResponse',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      errorFormat: 'openai',
      requestBodies: [{ contentType: 'application/json', schema: responsesRequest, source: 'handler' }],
      responses: {
        200: {
          description: 'The response; with `stream: true`, `text/event-stream` of named events.',
          body: responseObject,
          eventStream: responseStreamEvent,
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
