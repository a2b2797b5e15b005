import { withMeta } from '../../../kernel/validation/meta.ts';
import * as z from '../../../kernel/validation/zod.ts';
import type { ConversationTurn, JsonSchemaFormat, ToolCall, ToolDefinition } from '../../../models/index.ts';
import { RequestBudget } from './request-budget.ts';
import { invalid, missing, onlyKnownFields, present, unsupported } from './request-errors.ts';
import {
  callArguments,
  checkToolListSize,
  checkToolNames,
  checkToolResults,
  compileFormat,
  functionDefinition,
  generationParameters,
  jsonSchemaFormat,
  type OpenAiCompletion,
  outputTokens,
  temperatureOf,
  toolChoiceOf,
} from './request-rules.ts';
import { messageTextOfId } from './self-contained-ids.ts';

/**
 * `POST /api/v1/ai/responses`: OpenAI's Responses API, stateless (docs/openai-compatible-api.md). `input` is a string
 * or items (messages with text parts, echoed `message` / `function_call` items, `function_call_output`);
 * `instructions`, function `tools`, `tool_choice`, `text.format`, `max_output_tokens`, `temperature`, `top_p` and the
 * parameters every provider is asked about. What needs stored state (`previous_response_id`, `store: true`,
 * `background`, `conversation`, built-in tools) is refused with `unsupported_parameter`.
 *
 * `item_reference`: the Vercel AI SDK's default provider sends earlier assistant messages as a reference to their id
 * (it assumes OpenAI stored them). A non-streamed answer's message ids carry their own text (`msg_z_` + the text,
 * deflated, base64url), so such a reference is resolved without storage. A streamed message's id is announced before
 * its text exists, so it cannot; a reference to it (or to anything else) is a 400 that says to send the item itself
 * (Vercel: `providerOptions.openai.store = false`). A reference is inflated only up to what is left of the request's
 * character budget: a forged id that inflates past it is refused as the id is decoded.
 */

/** Input items of one request. */
export const RESPONSES_MAX_INPUT_ITEMS = 1_000;

/** A Responses request: the completion it asks for, how the answer is sent, and what the answer echoes. */
export interface ResponsesRequest {
  completion: OpenAiCompletion;
  stream: boolean;
  /** As sent, for the echo in the response object. */
  instructions: string | null;
  /** The tools as sent, for the echo. */
  toolsEcho: unknown[];
}

const TOP_LEVEL = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'max_output_tokens',
  'temperature',
  'top_p',
  'stream',
  'stream_options',
  'store',
  'background',
  'previous_response_id',
  'conversation',
  'include',
  'metadata',
  'user',
  'service_tier',
  'reasoning',
  'truncation',
  'max_tool_calls',
  'top_logprobs',
  'prompt',
  'prompt_cache_key',
  'safety_identifier',
] as const;

const nullable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/**
 * The request body as documented and as the handler first checks its shape; {@link parseResponsesRequest} does the
 * rest.
 */
export const responsesRequest = withMeta(
  z.looseObject({
    model: withMeta(z.string().check(z.minLength(1), z.maxLength(200)), { description: 'The botId.' }),
    input: withMeta(z.union([z.string(), z.array(z.looseObject({}))]), {
      description:
        'A string (one user message) or items: messages (`role`, `content` string or `input_text` / `output_text` parts), `function_call`, `function_call_output`, `item_reference` to a non-streamed message of ours.',
    }),
    instructions: nullable(z.string()),
    tools: nullable(
      z.array(
        withMeta(
          z.looseObject({
            type: withMeta(z.string(), { description: '`function` only; built-in tools are refused.' }),
            name: z.optional(z.string()),
            description: nullable(z.string()),
            parameters: nullable(z.record(z.string(), z.unknown())),
            strict: nullable(z.boolean()),
          }),
          { id: 'ResponsesFunctionTool' },
        ),
      ),
    ),
    tool_choice: nullable(z.union([z.string(), z.looseObject({ type: z.string() })])),
    parallel_tool_calls: nullable(z.boolean()),
    text: nullable(
      z.looseObject({
        format: nullable(
          withMeta(z.looseObject({ type: z.string() }), {
            description: '`text`, `json_object` or `json_schema` (`name`, `schema`, `strict`?).',
          }),
        ),
      }),
    ),
    max_output_tokens: nullable(z.number()),
    temperature: nullable(z.number()),
    top_p: nullable(z.number()),
    stream: nullable(z.boolean()),
    store: nullable(withMeta(z.boolean(), { description: '`false` only: nothing is stored.' })),
  }),
  {
    id: 'ResponsesRequest',
    description:
      '`previous_response_id`, `store: true`, `background`, `conversation` and built-in tools are refused (400 `unsupported_parameter`); other parameters follow the parameter table.',
  },
);

const BUILT_IN = new Set([
  'web_search',
  'web_search_preview',
  'file_search',
  'code_interpreter',
  'computer_use_preview',
  'image_generation',
  'mcp',
  'local_shell',
  'shell',
  'apply_patch',
  'custom',
]);

/** Validates a Responses body; the first problem is reported, as OpenAI does. */
export function parseResponsesRequest(
  body: Record<string, unknown>,
  limits: { maxOutputTokens: number },
): ResponsesRequest {
  onlyKnownFields(body, TOP_LEVEL, '');
  if (present(body.previous_response_id))
    throw unsupported('previous_response_id', '`previous_response_id` (this API keeps no state: send the whole input)');
  if (present(body.conversation)) throw unsupported('conversation', 'Conversations (this API keeps no state)');
  if (present(body.store) && body.store !== false)
    throw unsupported('store', 'Storing responses (`store: true`; this API keeps no state)');
  if (present(body.background) && body.background !== false) throw unsupported('background', 'Background responses');
  if (present(body.prompt)) throw unsupported('prompt', 'Stored prompts');
  if (present(body.include) && !(Array.isArray(body.include) && body.include.length === 0))
    throw unsupported('include', '`include`');
  if (present(body.reasoning)) {
    const reasoning = body.reasoning as Record<string, unknown>;
    if (typeof reasoning !== 'object' || Object.values(reasoning).some(present))
      throw unsupported('reasoning', 'Reasoning options');
  }
  if (present(body.truncation) && body.truncation !== 'disabled')
    throw unsupported('truncation', "`truncation` other than 'disabled'");
  if (present(body.max_tool_calls)) throw unsupported('max_tool_calls', '`max_tool_calls`');
  if (present(body.top_logprobs) && body.top_logprobs !== 0) throw unsupported('top_logprobs', 'Log probabilities');
  if (Array.isArray(body.tools))
    for (const [i, tool] of body.tools.entries()) {
      const type = (tool as { type?: unknown } | null)?.type;
      if (type !== 'function')
        throw unsupported(
          `tools[${i}].type`,
          BUILT_IN.has(String(type)) ? `The built-in tool '${String(type)}'` : `Tools of type '${String(type)}'`,
        );
    }

  if (Array.isArray(body.input) && body.input.length > RESPONSES_MAX_INPUT_ITEMS)
    throw invalid('input', `'input' holds at most ${RESPONSES_MAX_INPUT_ITEMS} items.`);
  const shape = responsesRequest.safeParse(body);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    const param = issue.path.map(String).join('.') || null;
    if (issue.code === 'invalid_type' && issue.input === undefined) throw missing(param ?? 'body');
    throw invalid(param, `Invalid value for '${param}': ${issue.message}.`);
  }
  const request = shape.data;

  // Every caller string that reaches the model counts toward one budget, as it is read.
  const budget = new RequestBudget();
  const rawTools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]) : [];
  checkToolListSize(rawTools, 'tools', budget);
  const tools: ToolDefinition[] = rawTools.map((tool, i) => {
    onlyKnownFields(tool, ['type', 'name', 'description', 'parameters', 'strict'], `tools[${i}]`);
    return functionDefinition(tool, `tools[${i}]`, budget);
  });
  checkToolNames(tools, 'tools');
  const toolChoice = toolChoiceOf(body.tool_choice, tools, (value) =>
    value.type === 'function' && typeof value.name === 'string' ? value.name : undefined,
  );
  if (present(body.parallel_tool_calls) && tools.length === 0 && body.parallel_tool_calls === false)
    throw invalid('parallel_tool_calls', "'parallel_tool_calls' is only allowed when 'tools' are given.");

  const parameters = generationParameters(body);
  const text = (request.text ?? {}) as Record<string, unknown>;
  onlyKnownFields(text, ['format', 'verbosity'], 'text');
  if (present(text.verbosity)) {
    if (typeof text.verbosity !== 'string') throw invalid('text.verbosity', "Invalid 'text.verbosity'.");
    parameters.verbosity = text.verbosity;
  }
  const { responseFormat, jsonSchema } = textFormatOf(text.format, budget);
  const streamOptions = (body.stream_options ?? {}) as Record<string, unknown>;
  onlyKnownFields(streamOptions, ['include_obfuscation'], 'stream_options');
  if (present(streamOptions.include_obfuscation) && streamOptions.include_obfuscation !== false)
    throw unsupported('stream_options.include_obfuscation', 'Stream obfuscation');

  const instructions: string[] = [];
  if (typeof request.instructions === 'string') {
    budget.spend(request.instructions.length);
    if (request.instructions.trim()) instructions.push(request.instructions);
  }
  const { turns, origins } = conversationOf(request.input as string | Record<string, unknown>[], instructions, budget);
  checkToolResults(turns, origins);
  const lastUser = turns.findLast((t) => t.role === 'user');
  if (!lastUser?.text.trim()) throw invalid('input', 'input must contain a user message with text.');
  const temperature = temperatureOf(request.temperature);
  const maxTokens = outputTokens(body.max_output_tokens, 'max_output_tokens', limits.maxOutputTokens);

  return {
    completion: {
      botId: request.model,
      turns,
      prompt: lastUser.text,
      ...(instructions.length ? { extraInstructions: instructions.join('\n\n') } : {}),
      responseFormat,
      ...(jsonSchema ? { jsonSchema, checkBeforeCharge: compileFormat(jsonSchema, 'text.format.schema') } : {}),
      ...(tools.length ? { tools } : {}),
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ...(typeof body.parallel_tool_calls === 'boolean' && tools.length
        ? { parallelToolCalls: body.parallel_tool_calls }
        : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
      parameters,
    },
    stream: request.stream === true,
    instructions: typeof request.instructions === 'string' ? request.instructions : null,
    toolsEcho: rawTools,
  };
}

function textFormatOf(
  value: unknown,
  budget: RequestBudget,
): { responseFormat: 'text' | 'json'; jsonSchema?: JsonSchemaFormat } {
  if (!present(value)) return { responseFormat: 'text' };
  const format = value as Record<string, unknown>;
  switch (format.type) {
    case 'text':
      onlyKnownFields(format, ['type'], 'text.format');
      return { responseFormat: 'text' };
    case 'json_object':
      onlyKnownFields(format, ['type'], 'text.format');
      return { responseFormat: 'json' };
    case 'json_schema':
      onlyKnownFields(format, ['type', 'name', 'description', 'schema', 'strict'], 'text.format');
      return { responseFormat: 'json', jsonSchema: jsonSchemaFormat(format, 'text.format', budget) };
    default:
      throw invalid('text.format.type', `Invalid 'text.format.type': '${String(format.type)}'.`);
  }
}

/**
 * The turns of `input` (system / developer messages go to `instructions`), with where each came from; every text is
 * counted toward the budget as it is read (a reference's, as it is inflated).
 */
function conversationOf(
  input: string | Record<string, unknown>[],
  instructions: string[],
  budget: RequestBudget,
): { turns: ConversationTurn[]; origins: string[] } {
  if (typeof input === 'string') {
    budget.spend(input.length);
    return { turns: [{ role: 'user', text: input }], origins: ['input'] };
  }
  const turns: ConversationTurn[] = [];
  const origins: string[] = [];
  const assistant = (text: string, call: ToolCall | undefined, at: string) => {
    const last = turns.at(-1);
    // Consecutive output items of one answer (its text, its calls) are one assistant turn.
    if (last?.role === 'assistant' && (call || !last.toolCalls?.length)) {
      if (text) last.text = last.text ? `${last.text}\n${text}` : text;
      if (call) last.toolCalls = [...(last.toolCalls ?? []), call];
      return;
    }
    turns.push(call ? { role: 'assistant', text, toolCalls: [call] } : { role: 'assistant', text });
    origins.push(at);
  };
  for (const [i, item] of input.entries()) {
    const at = `input[${i}]`;
    const type = item.type ?? 'message';
    switch (type) {
      case 'message': {
        onlyKnownFields(item, ['type', 'role', 'content', 'id', 'status'], at);
        const role = item.role;
        const text = itemText(item.content, at, role === 'assistant', budget);
        if (role === 'system' || role === 'developer') {
          if (text.trim()) instructions.push(text);
        } else if (role === 'user') {
          turns.push({ role: 'user', text });
          origins.push(at);
        } else if (role === 'assistant') assistant(text, undefined, at);
        else throw invalid(`${at}.role`, `Invalid value for '${at}.role': '${String(role)}'.`);
        break;
      }
      case 'function_call': {
        onlyKnownFields(item, ['type', 'id', 'call_id', 'name', 'arguments', 'status'], at);
        if (typeof item.call_id !== 'string' || !item.call_id) throw missing(`${at}.call_id`);
        if (typeof item.name !== 'string' || !item.name) throw missing(`${at}.name`);
        budget.spend(item.name.length);
        const call = {
          id: item.call_id,
          name: item.name,
          arguments: callArguments(item.arguments, `${at}.arguments`, budget),
        };
        assistant('', call, at);
        break;
      }
      case 'function_call_output': {
        onlyKnownFields(item, ['type', 'id', 'call_id', 'output', 'status'], at);
        if (typeof item.call_id !== 'string' || !item.call_id) throw missing(`${at}.call_id`);
        const output = itemText(item.output, `${at}.output`, false, budget);
        turns.push({ role: 'tool', toolCallId: item.call_id, text: output });
        origins.push(`${at}.call_id`);
        break;
      }
      case 'item_reference': {
        onlyKnownFields(item, ['type', 'id'], at);
        const text = typeof item.id === 'string' ? messageTextOfId(item.id, budget) : undefined;
        if (text === undefined)
          throw unsupported(
            at,
            `A reference to item '${String(item.id).slice(0, 80)}' (this API stores nothing: send the item itself; with the Vercel AI SDK set providerOptions.openai.store = false)`,
          );
        assistant(text, undefined, at);
        break;
      }
      default:
        throw unsupported(`${at}.type`, `Input items of type '${String(type)}'`);
    }
  }
  return { turns, origins };
}

/** An item's `content`: a string, or its text parts (`input_text`, `output_text`, `text`) joined, each counted. */
function itemText(content: unknown, at: string, assistant: boolean, budget: RequestBudget): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') {
    budget.spend(content.length);
    return content;
  }
  if (!Array.isArray(content)) throw invalid(`${at}.content`, `Invalid '${at}.content': a string or parts.`);
  return content
    .map((part, j) => {
      const p = part as { type?: unknown; text?: unknown; refusal?: unknown };
      const text =
        (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string'
          ? p.text
          : assistant && p.type === 'refusal' && typeof p.refusal === 'string'
            ? p.refusal
            : undefined;
      if (text === undefined) throw unsupported(`${at}.content[${j}]`, `Content parts of type '${String(p.type)}'`);
      budget.spend(text.length);
      return text;
    })
    .join('\n');
}
