import { conversationOf, type ModelRequest } from '../../models/index.ts';

/** The Chat Completions request body: the system prompt, then the conversation, then what the caller asked for. */
export function chatCompletionBody(
  model: string,
  request: ModelRequest,
  options: { stream?: boolean } = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: [{ role: 'system', content: request.system }, ...conversationOf(request).map(chatMessage)],
    stream: options.stream === true,
  };
  if (options.stream) body.stream_options = { include_usage: true };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: every compatible server understands it.
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.responseFormat === 'json') {
    const format = request.jsonSchema;
    body.response_format = format
      ? {
          type: 'json_schema',
          json_schema: {
            name: format.name,
            ...(format.description === undefined ? {} : { description: format.description }),
            schema: format.schema,
            ...(format.strict === undefined ? {} : { strict: format.strict }),
          },
        }
      : { type: 'json_object' };
  }
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
        ...(tool.strict === undefined ? {} : { strict: tool.strict }),
      },
    }));
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice = typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  // The caller's other parameters, by their OpenAI names: this provider takes them all (see parameters.ts).
  for (const [name, value] of Object.entries(request.parameters ?? {})) if (value !== undefined) body[name] = value;
  return body;
}

/** A conversation turn as a Chat Completions message. */
function chatMessage(turn: ReturnType<typeof conversationOf>[number]): Record<string, unknown> {
  if (turn.role === 'tool') return { role: 'tool', tool_call_id: turn.toolCallId, content: turn.text };
  if (turn.role === 'assistant' && turn.toolCalls && turn.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: turn.text || null,
      tool_calls: turn.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return { role: turn.role, content: turn.text };
}
