import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int } from '../../http/wire-schemas.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

const usage = withMeta(z.object({ inputTokens: int(), outputTokens: int() }), {
  description: 'When the model reports it.',
});

/** The wire's `fontes`: the knowledge files the answer was grounded on (native completion and the OpenAI route). */
export const fontes = withMeta(
  z.array(
    z.object({
      procedencia: withMeta(z.string(), { description: 'The file name as uploaded.' }),
      score: withMeta(z.number().check(z.gte(0), z.lte(1)), { description: "The file's best excerpt's score." }),
    }),
  ),
  {
    id: 'Fontes',
    description:
      'Present when the bot has knowledge and excerpts were given to the model: one entry per file, best first.',
  },
);

export const completionResult = withMeta(
  z.union([
    withMeta(
      z.object({ success: z.literal(true), result: z.string(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat text' },
    ),
    withMeta(
      z.object({ success: z.literal(true), dados: z.unknown(), usage: z.optional(usage), fontes: z.optional(fontes) }),
      { title: 'responseFormat json' },
    ),
  ]),
  { id: 'CompletionResult' },
);

/** OpenAI's error body, on the OpenAI-format routes only (docs/reference/errors.md). */
export const openAiErrorBody = withMeta(
  z.object({
    error: z.object({
      message: z.string(),
      type: withMeta(z.string(), {
        description:
          '`invalid_request_error`, `authentication_error`, `permission_error`, `insufficient_quota`, `rate_limit_error`, `api_error`, `timeout_error`.',
      }),
      param: z.nullable(z.string()),
      code: z.nullable(z.string()),
    }),
  }),
  { id: 'OpenAiError' },
);

const chatUsage = z.object({ prompt_tokens: int(), completion_tokens: int(), total_tokens: int() });

const finishReason = z.enum(['stop', 'length', 'tool_calls']);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: withMeta(z.string(), { description: 'JSON text of an object.' }) }),
});

export const chatCompletionResult = withMeta(
  z.object({
    id: withMeta(z.string(), { description: '`chatcmpl-…`' }),
    object: z.literal('chat.completion'),
    created: withMeta(int(), { description: 'Unix seconds.' }),
    model: withMeta(z.string(), { description: 'The botId.' }),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({
          role: z.literal('assistant'),
          content: withMeta(z.nullable(z.string()), { description: 'Null when the answer is tool calls only.' }),
          tool_calls: z.optional(z.array(toolCall)),
          refusal: z.null(),
          annotations: z.array(z.never()),
        }),
        logprobs: z.null(),
        finish_reason: finishReason,
      }),
    ),
    usage: z.optional(chatUsage),
    fontes: z.optional(fontes),
  }),
  { id: 'ChatCompletion' },
);

const toolCallDelta = z.object({
  index: int(),
  id: z.optional(z.string()),
  type: z.optional(z.literal('function')),
  function: z.object({ name: z.optional(z.string()), arguments: z.string() }),
});

export const chatCompletionChunk = withMeta(
  z.object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: int(),
    model: z.string(),
    choices: withMeta(
      z.array(
        z.object({
          index: z.literal(0),
          delta: z.object({
            role: z.optional(z.literal('assistant')),
            content: z.optional(z.nullable(z.string())),
            tool_calls: withMeta(z.optional(z.array(toolCallDelta)), {
              description:
                'The first piece of a call has its `index`, `id`, `type` and `function.name`; later ones `index` and more `function.arguments`.',
            }),
          }),
          logprobs: z.null(),
          finish_reason: z.nullable(finishReason),
        }),
      ),
      { description: 'Empty in the usage chunk (`stream_options.include_usage`).' },
    ),
    usage: z.optional(z.nullable(chatUsage)),
    fontes: withMeta(z.optional(fontes), { description: 'On the chunk that carries `finish_reason`.' }),
  }),
  {
    id: 'ChatCompletionChunk',
    description:
      'One `data:` event of the stream; the stream ends with `data: [DONE]`, or, after a failure, with `data: {"error": {…}}` (OpenAiError) and no `[DONE]`.',
  },
);

const outputText = z.object({
  type: z.literal('output_text'),
  annotations: z.array(z.never()),
  logprobs: z.array(z.never()),
  text: z.string(),
});

const responseOutputItem = z.union([
  withMeta(
    z.object({
      id: withMeta(z.string(), {
        description: '`msg_…`; a non-streamed answer’s id carries its text, so an `item_reference` to it works.',
      }),
      type: z.literal('message'),
      status: z.enum(['in_progress', 'completed']),
      role: z.literal('assistant'),
      content: z.array(outputText),
    }),
    { title: 'message' },
  ),
  withMeta(
    z.object({
      id: withMeta(z.string(), { description: '`fc_…`' }),
      type: z.literal('function_call'),
      status: z.enum(['in_progress', 'completed']),
      arguments: z.string(),
      call_id: z.string(),
      name: z.string(),
    }),
    { title: 'function_call' },
  ),
]);

const responseUsage = z.object({
  input_tokens: int(),
  input_tokens_details: z.object({ cached_tokens: int() }),
  output_tokens: int(),
  output_tokens_details: z.object({ reasoning_tokens: int() }),
  total_tokens: int(),
});

export const responseObject = withMeta(
  z.looseObject({
    id: withMeta(z.string(), { description: '`resp_…` (not stored: it cannot be retrieved later).' }),
    object: z.literal('response'),
    created_at: withMeta(int(), { description: 'Unix seconds.' }),
    status: z.enum(['in_progress', 'completed', 'incomplete']),
    error: z.null(),
    incomplete_details: z.nullable(z.object({ reason: z.literal('max_output_tokens') })),
    model: withMeta(z.string(), { description: 'The botId.' }),
    output: z.array(responseOutputItem),
    store: z.literal(false),
    usage: z.nullable(responseUsage),
    fontes: z.optional(fontes),
  }),
  {
    id: 'Response',
    description:
      'OpenAI’s `response` object; the request’s settings are echoed (`instructions`, `tools`, `tool_choice`, `text`, `temperature`…).',
  },
);

export const responseStreamEvent = withMeta(
  z.looseObject({
    type: withMeta(z.string(), {
      description:
        '`response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`, `response.output_text.done`, `response.content_part.done`, `response.function_call_arguments.delta`, `response.function_call_arguments.done`, `response.output_item.done`, `response.completed` / `response.incomplete`, or `error`.',
    }),
    sequence_number: int(),
  }),
  {
    id: 'ResponseStreamEvent',
    description: 'One `event: <type>` / `data: {…}` pair of the stream, in OpenAI’s order; no `[DONE]`.',
  },
);

export const embeddingsResult = withMeta(
  z.object({
    object: z.literal('list'),
    data: z.array(
      z.object({
        object: z.literal('embedding'),
        index: int(),
        embedding: withMeta(z.union([z.array(z.number()), z.string()]), {
          description: 'Numbers, or with `encoding_format: base64` the little-endian float32 bytes in base64.',
        }),
      }),
    ),
    model: withMeta(z.string(), { description: 'The `model` asked for.' }),
    usage: withMeta(z.object({ prompt_tokens: int(), total_tokens: int() }), {
      description: 'Estimated: about 4 characters a token.',
    }),
  }),
  { id: 'EmbeddingList' },
);

const modelEntry = z.object({
  id: withMeta(z.string(), { description: 'The botId.' }),
  object: z.literal('model'),
  created: withMeta(int(), { description: 'Unix seconds: when the bot was created.' }),
  owned_by: withMeta(z.string(), { description: 'The projectId.' }),
});

export const modelObject = withMeta(modelEntry, { id: 'Model' });

export const modelList = withMeta(z.object({ object: z.literal('list'), data: z.array(modelEntry) }), {
  id: 'ModelList',
});
