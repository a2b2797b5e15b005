import type { ConversationTurn, JsonSchemaFormat, ToolCall } from '../../../models/index.ts';
import { withMeta } from '../../../kernel/validation/meta.ts';
import * as z from '../../../kernel/validation/zod.ts';
import { RequestBudget } from './request-budget.ts';
import { invalid, missing, OpenAiRequestError, onlyKnownFields, present, unsupported } from './request-errors.ts';
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
  refuseUnsupportedEverywhere,
  temperatureOf,
  toolChoiceOf,
} from './request-rules.ts';

/**
 * `POST /api/v1/ai/chat/completions`: OpenAI's Chat Completions request (docs/openai-compatible-api.md). Every
 * parameter OpenAI defines is either honoured (forwarded to the bot's model provider, or refused per provider once the
 * bot is known: `shared/models/parameters.ts`) or refused here with `unsupported_parameter`; a field OpenAI does not
 * define is `unknown_parameter`. Fields clients echo back from our own answers (`refusal`, `annotations` on an
 * assistant message, `name` on a tool message, `content: ""` beside `tool_calls`) are taken.
 */

/** At most this many messages; their text together is bounded by the conversation budget (./request-budget.ts). */
export const CHAT_LIMITS = { messages: 1_000 } as const;

const nullable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

const contentPart = withMeta(
  z.looseObject({
    type: withMeta(z.string(), {
      description: '`text` (and `refusal` on assistant messages); images, audio, files: 400.',
    }),
    text: z.optional(z.string()),
  }),
  { id: 'ChatContentPart' },
);

const toolCall = withMeta(
  z.object({
    id: z.string(),
    type: z.literal('function'),
    function: z.object({
      name: z.string(),
      arguments: withMeta(z.string(), { description: 'JSON text of an object.' }),
    }),
  }),
  { id: 'ChatToolCall' },
);

const message = withMeta(
  z.looseObject({
    role: withMeta(z.string(), {
      description:
        '`system` / `developer` (appended to the bot’s instructions), `user`, `assistant` (with `tool_calls`), `tool` (with `tool_call_id`).',
    }),
    content: nullable(z.union([z.string(), z.array(contentPart)])),
    tool_calls: z.optional(z.array(toolCall)),
    tool_call_id: z.optional(z.string()),
    name: z.optional(z.string()),
    refusal: nullable(z.string()),
    annotations: z.optional(z.array(z.unknown())),
  }),
  { id: 'ChatMessage' },
);

const functionTool = withMeta(
  z.looseObject({
    type: withMeta(z.string(), { description: '`function` only.' }),
    function: z.object({
      name: z.string(),
      description: z.optional(z.string()),
      parameters: withMeta(z.optional(z.record(z.string(), z.unknown())), { description: 'JSON Schema (an object).' }),
      strict: nullable(z.boolean()),
    }),
  }),
  { id: 'ChatTool' },
);

/** The request body as documented and as the handler first checks its shape; {@link parseChatRequest} does the rest. */
export const chatCompletionRequest = withMeta(
  z.looseObject({
    model: withMeta(z.string().check(z.minLength(1, 'model must not be empty'), z.maxLength(200)), {
      description: 'The botId: its instructions, knowledge and model answer.',
    }),
    messages: z.array(message).check(z.minLength(1, 'messages must not be empty')),
    tools: nullable(z.array(functionTool)),
    tool_choice: nullable(
      withMeta(z.union([z.string(), z.looseObject({ type: z.string() })]), {
        description: '`auto`, `none`, `required` or `{"type":"function","function":{"name"}}`.',
      }),
    ),
    parallel_tool_calls: nullable(z.boolean()),
    response_format: nullable(
      withMeta(z.looseObject({ type: z.string() }), {
        description:
          '`{"type":"text"}`, `{"type":"json_object"}` or `{"type":"json_schema","json_schema":{"name","schema","strict"?}}`.',
      }),
    ),
    temperature: nullable(z.number()),
    top_p: nullable(z.number()),
    max_tokens: nullable(z.number()),
    max_completion_tokens: nullable(z.number()),
    stop: nullable(z.union([z.string(), z.array(z.string())])),
    seed: nullable(z.number()),
    presence_penalty: nullable(z.number()),
    frequency_penalty: nullable(z.number()),
    logit_bias: nullable(z.record(z.string(), z.number())),
    user: nullable(z.string()),
    metadata: nullable(z.record(z.string(), z.string())),
    n: nullable(z.number()),
    stream: nullable(z.boolean()),
    stream_options: nullable(z.looseObject({ include_usage: z.optional(z.boolean()) })),
  }),
  {
    id: 'ChatCompletionRequest',
    description:
      'Every other OpenAI parameter is forwarded to the bot’s provider or refused (400 `unsupported_parameter`) as the parameter table says; an unknown field is 400 `unknown_parameter`.',
  },
);

/** A Chat Completions request: the completion it asks for, and how the answer is sent. */
export interface ChatRequest {
  completion: OpenAiCompletion;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
}

const TOP_LEVEL = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'response_format',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'user',
  'metadata',
  'service_tier',
  'reasoning_effort',
  'verbosity',
  'prediction',
  'web_search_options',
  'prompt_cache_key',
  'safety_identifier',
  'store',
  'modalities',
  'audio',
  'functions',
  'function_call',
] as const;

const MESSAGE_FIELDS: Record<string, readonly string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  // What our own answers carry, echoed back by clients (`refusal`, `annotations`, `audio: null`, `function_call: null`).
  assistant: ['role', 'content', 'name', 'tool_calls', 'refusal', 'annotations', 'audio', 'function_call'],
  tool: ['role', 'content', 'tool_call_id', 'name'],
};

/** Validates a Chat Completions body; the first problem is reported, as OpenAI does. */
export function parseChatRequest(body: Record<string, unknown>, limits: { maxOutputTokens: number }): ChatRequest {
  onlyKnownFields(body, TOP_LEVEL, '');
  refuseUnsupportedEverywhere(body);
  if (Array.isArray(body.tools))
    for (const [i, tool] of body.tools.entries()) {
      const type = (tool as { type?: unknown } | null)?.type;
      if (type !== 'function') throw unsupported(`tools[${i}].type`, `Tools of type '${String(type)}'`);
    }

  const shape = chatCompletionRequest.safeParse(body);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    const param = issue.path.map(String).join('.') || null;
    const absent = issue.code === 'invalid_type' && issue.input === undefined;
    throw new OpenAiRequestError(
      absent ? `Missing required parameter: '${param}'.` : `Invalid value for '${param}': ${issue.message}.`,
      param,
      absent ? 'missing_required_parameter' : 'invalid_value',
    );
  }
  const request = shape.data;
  if (request.messages.length > CHAT_LIMITS.messages)
    throw invalid('messages', `messages must hold at most ${CHAT_LIMITS.messages} messages.`);

  const temperature = temperatureOf(request.temperature);
  const maxTokensParam = present(request.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens';
  const maxTokens = outputTokens(body[maxTokensParam], maxTokensParam, limits.maxOutputTokens);
  const parameters = generationParameters(body);
  // Every caller string that reaches the model counts toward one budget, as it is read.
  const budget = new RequestBudget();
  if (parameters.prediction !== undefined) budget.spendJson(parameters.prediction);

  // Tools first: the messages' tool calls and the tool choice refer to them.
  const rawTools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  checkToolListSize(rawTools, 'tools', budget);
  const tools = rawTools.map((tool, i) => {
    const t = tool as Record<string, unknown>;
    onlyKnownFields(t, ['type', 'function'], `tools[${i}]`);
    const fn = t.function as Record<string, unknown>;
    onlyKnownFields(fn, ['name', 'description', 'parameters', 'strict'], `tools[${i}].function`);
    return functionDefinition(fn, `tools[${i}].function`, budget);
  });
  checkToolNames(tools, 'tools');
  const toolChoice = toolChoiceOf(body.tool_choice, tools, (value) => {
    const fn = value.function as { name?: unknown } | undefined;
    return value.type === 'function' && typeof fn?.name === 'string' ? fn.name : undefined;
  });
  if (present(body.parallel_tool_calls) && tools.length === 0)
    throw invalid('parallel_tool_calls', "'parallel_tool_calls' is only allowed when 'tools' are given.");

  const { responseFormat, jsonSchema } = responseFormatOf(body.response_format, budget);
  if (present(request.stream_options) && request.stream !== true)
    throw invalid('stream_options', "'stream_options' is only allowed when 'stream' is true.");
  const streamOptions = (request.stream_options ?? {}) as Record<string, unknown>;
  onlyKnownFields(streamOptions, ['include_usage', 'include_obfuscation'], 'stream_options');
  if (present(streamOptions.include_obfuscation) && streamOptions.include_obfuscation !== false)
    throw unsupported('stream_options.include_obfuscation', 'Stream obfuscation');

  const { turns, origins, instructions } = conversationOf(request.messages, budget);
  checkToolResults(turns, origins);
  const lastUser = turns.findLast((t) => t.role === 'user');
  if (!lastUser?.text.trim())
    throw new OpenAiRequestError(
      'messages must contain a user message with text.',
      'messages',
      'missing_required_parameter',
    );

  return {
    completion: {
      botId: request.model,
      turns,
      prompt: lastUser.text,
      ...(instructions.length ? { extraInstructions: instructions.join('\n\n') } : {}),
      responseFormat,
      ...(jsonSchema
        ? { jsonSchema, checkBeforeCharge: compileFormat(jsonSchema, 'response_format.json_schema.schema') }
        : {}),
      ...(tools.length ? { tools } : {}),
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ...(typeof body.parallel_tool_calls === 'boolean' ? { parallelToolCalls: body.parallel_tool_calls } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
      parameters,
    },
    stream: request.stream === true,
    includeUsage: request.stream === true && request.stream_options?.include_usage === true,
  };
}

/**
 * The messages as turns (system and developer messages are the caller's instructions), with where each turn came
 * from; every text counted toward the budget as it is read.
 */
function conversationOf(
  messages: readonly Record<string, unknown>[],
  budget: RequestBudget,
): { turns: ConversationTurn[]; origins: string[]; instructions: string[] } {
  const turns: ConversationTurn[] = [];
  const origins: string[] = [];
  const instructions: string[] = [];
  for (const [i, raw] of messages.entries()) {
    const at = `messages[${i}]`;
    const m = raw as Record<string, unknown> & { role: string };
    if (m.role === 'function') throw unsupported(`${at}.role`, 'Messages of role `function` (use `tool`)');
    const fields = MESSAGE_FIELDS[m.role];
    if (!fields) throw invalid(`${at}.role`, `Invalid value for '${at}.role': '${m.role}'.`);
    onlyKnownFields(m, fields, at);
    if (present(m.name) && m.role !== 'tool') throw unsupported(`${at}.name`, 'Participant names on messages (`name`)');
    if (present(m.audio)) throw unsupported(`${at}.audio`, 'Audio');
    if (present(m.function_call)) throw unsupported(`${at}.function_call`, '`function_call` (use `tool_calls`)');
    const text = messageText(m.content as Content, at, m.role === 'assistant', budget);
    if (m.role === 'system' || m.role === 'developer') {
      if (text.trim()) instructions.push(text);
      continue;
    }
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !m.tool_call_id) throw missing(`${at}.tool_call_id`);
      turns.push({ role: 'tool', toolCallId: m.tool_call_id, text });
      origins.push(`${at}.tool_call_id`);
      continue;
    }
    if (m.role === 'assistant') {
      const calls: ToolCall[] = (
        (m.tool_calls ?? []) as { id: string; function: { name: string; arguments: unknown } }[]
      ).map((call, j) => {
        budget.spend(call.function.name.length);
        const args = callArguments(call.function.arguments, `${at}.tool_calls[${j}].function.arguments`, budget);
        return { id: call.id, name: call.function.name, arguments: args };
      });
      turns.push(calls.length > 0 ? { role: 'assistant', text, toolCalls: calls } : { role: 'assistant', text });
      origins.push(at);
      continue;
    }
    turns.push({ role: 'user', text });
    origins.push(at);
  }
  return { turns, origins, instructions };
}

function responseFormatOf(
  value: unknown,
  budget: RequestBudget,
): { responseFormat: 'text' | 'json'; jsonSchema?: JsonSchemaFormat } {
  if (!present(value)) return { responseFormat: 'text' };
  const format = value as Record<string, unknown>;
  switch (format.type) {
    case 'text':
      onlyKnownFields(format, ['type'], 'response_format');
      return { responseFormat: 'text' };
    case 'json_object':
      onlyKnownFields(format, ['type'], 'response_format');
      return { responseFormat: 'json' };
    case 'json_schema': {
      onlyKnownFields(format, ['type', 'json_schema'], 'response_format');
      const spec = format.json_schema;
      if (typeof spec !== 'object' || spec === null) throw missing('response_format.json_schema');
      onlyKnownFields(
        spec as Record<string, unknown>,
        ['name', 'description', 'schema', 'strict'],
        'response_format.json_schema',
      );
      return {
        responseFormat: 'json',
        jsonSchema: jsonSchemaFormat(spec as Record<string, unknown>, 'response_format.json_schema', budget),
      };
    }
    default:
      throw invalid('response_format.type', `Invalid 'response_format.type': '${String(format.type)}'.`);
  }
}

type Content = string | { type: string; text?: string | undefined; refusal?: string }[] | null | undefined;

/**
 * A message's text: a string, or its `text` parts joined; any other part (image, audio, file) is refused. Each piece
 * is counted toward the budget before anything is joined.
 */
function messageText(content: Content, at: string, assistant: boolean, budget: RequestBudget): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') {
    budget.spend(content.length);
    return content;
  }
  return content
    .map((part, j) => {
      if (part.type === 'image_url') throw unsupported(`${at}.content[${j}]`, 'Image input');
      if (part.type === 'input_audio') throw unsupported(`${at}.content[${j}]`, 'Audio input');
      if (part.type === 'file') throw unsupported(`${at}.content[${j}]`, 'File input');
      // An assistant's earlier refusal, echoed: it was said, so it stays in the conversation.
      if (assistant && part.type === 'refusal' && typeof part.refusal === 'string') {
        budget.spend(part.refusal.length);
        return part.refusal;
      }
      if (part.type !== 'text' || typeof part.text !== 'string')
        throw unsupported(`${at}.content[${j}].type`, `Content parts of type \`${part.type}\``);
      budget.spend(part.text.length);
      return part.text;
    })
    .join('\n');
}
