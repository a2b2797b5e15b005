import type { ConversationTurn } from '../../../models/index.ts';
import { withMeta } from '../../../kernel/validation/meta.ts';
import * as z from '../../../kernel/validation/zod.ts';

/**
 * `POST /api/v1/ai/chat/completions`: OpenAI's Chat Completions request, the part this service honours (contract
 * §12). Fields OpenAI defines that change nothing here (`user`, `store`, `metadata`, `seed`, `top_p`…) are accepted
 * and ignored, so any OpenAI client works unchanged; what would silently change the meaning of a request (tools,
 * images, audio, n > 1) is refused.
 */

/** The largest conversation accepted, in characters of text: the JSON body limit (10 MB) bounds it anyway. */
export const CHAT_LIMITS = { messages: 1_000, maxTokens: 1_000_000 } as const;

const nullable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

const contentPart = withMeta(
  z.looseObject({
    type: withMeta(z.string(), { description: 'Only `text` is supported; images, audio and files are refused.' }),
    text: z.optional(z.string()),
  }),
  { id: 'ChatContentPart' },
);

const message = withMeta(
  z.looseObject({
    role: withMeta(z.string(), {
      description: '`system` / `developer` (appended to the bot’s instructions), `user`, `assistant`.',
    }),
    content: nullable(z.union([z.string(), z.array(contentPart)])),
    name: z.optional(z.string()),
  }),
  { id: 'ChatMessage' },
);

/** The request body as documented and as the handler first checks its shape; {@link parseChatRequest} does the rest. */
export const chatCompletionRequest = withMeta(
  z.looseObject({
    model: withMeta(z.string().check(z.minLength(1, 'model must not be empty'), z.maxLength(200)), {
      description: 'The botId: its instructions, knowledge and model answer.',
    }),
    messages: z.array(message).check(z.minLength(1, 'messages must not be empty')),
    response_format: nullable(z.looseObject({ type: z.string() })),
    temperature: nullable(z.number()),
    max_tokens: nullable(z.number()),
    max_completion_tokens: nullable(z.number()),
    n: nullable(z.number()),
    stream: nullable(z.boolean()),
    stream_options: nullable(z.looseObject({ include_usage: z.optional(z.boolean()) })),
  }),
  { id: 'ChatCompletionRequest' },
);

export interface ChatRequest {
  botId: string;
  /** The conversation without system messages, oldest first. */
  turns: ConversationTurn[];
  /** The last user message: what the bot's knowledge is searched for. */
  prompt: string;
  /** `system` / `developer` messages, in order, joined. */
  extraInstructions?: string;
  responseFormat: 'text' | 'json';
  temperature?: number;
  maxOutputTokens?: number;
  stream: boolean;
  includeUsage: boolean;
}

/**
 * A request OpenAI would refuse or that this service cannot honour: 400 with OpenAI's `param` and `code`
 * (`unsupported_parameter` for tools, images, audio, n > 1; `invalid_value` / `missing_required_parameter`…).
 */
export class InvalidChatRequestError extends Error {
  readonly param: string | null;
  readonly code: string;

  constructor(message: string, param: string | null, code: string) {
    super(message);
    this.name = 'InvalidChatRequestError';
    this.param = param;
    this.code = code;
  }
}

const unsupported = (param: string, what: string) =>
  new InvalidChatRequestError(`${what} is not supported by this API.`, param, 'unsupported_parameter');
const invalid = (param: string | null, message: string) => new InvalidChatRequestError(message, param, 'invalid_value');

const present = (value: unknown) => value !== undefined && value !== null;

/** Validates a Chat Completions body; the first problem is reported, as OpenAI does. */
export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  for (const param of ['tools', 'functions'] as const) {
    const value = body[param];
    if (present(value) && !(Array.isArray(value) && value.length === 0)) throw unsupported(param, `\`${param}\``);
  }
  if (present(body.audio)) throw unsupported('audio', 'Audio output');
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text'))
    throw unsupported('modalities', 'Output other than text');

  const shape = chatCompletionRequest.safeParse(body);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    const param = issue.path.map(String).join('.') || null;
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    throw new InvalidChatRequestError(
      missing ? `Missing required parameter: '${param}'.` : `Invalid value for '${param}': ${issue.message}.`,
      param,
      missing ? 'missing_required_parameter' : 'invalid_value',
    );
  }
  const request = shape.data;
  if (request.messages.length > CHAT_LIMITS.messages)
    throw invalid('messages', `messages must hold at most ${CHAT_LIMITS.messages} messages.`);

  if (present(request.n) && request.n !== 1) throw unsupported('n', 'Generating more than one choice (`n` > 1)');
  const temperature = request.temperature ?? undefined;
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    throw invalid('temperature', `Invalid 'temperature': ${temperature}. Expected a value between 0 and 2.`);
  const maxTokensParam = present(request.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens';
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1 && maxTokens <= CHAT_LIMITS.maxTokens))
    throw invalid(maxTokensParam, `Invalid '${maxTokensParam}': ${maxTokens}. Expected a whole number of at least 1.`);

  const format = request.response_format?.type ?? 'text';
  if (format !== 'text' && format !== 'json_object') {
    throw format === 'json_schema'
      ? unsupported('response_format', '`response_format` of type `json_schema` (use `json_object`)')
      : invalid('response_format.type', `Invalid 'response_format.type': '${format}'.`);
  }

  const turns: ConversationTurn[] = [];
  const instructions: string[] = [];
  for (const [i, m] of request.messages.entries()) {
    const at = `messages[${i}]`;
    if (m.role === 'tool' || m.role === 'function') throw unsupported(`${at}.role`, `Messages of role \`${m.role}\``);
    if (present(m.tool_calls) || present(m.function_call)) throw unsupported(`${at}.tool_calls`, 'Tool calls');
    if (present(m.audio)) throw unsupported(`${at}.audio`, 'Audio');
    if (!['system', 'developer', 'user', 'assistant'].includes(m.role))
      throw invalid(`${at}.role`, `Invalid value for '${at}.role': '${m.role}'.`);
    const text = messageText(m.content ?? null, at);
    if (m.role === 'system' || m.role === 'developer') {
      if (text.trim()) instructions.push(text);
    } else {
      turns.push({ role: m.role as 'user' | 'assistant', text });
    }
  }
  const lastUser = turns.findLast((t) => t.role === 'user');
  if (!lastUser?.text.trim())
    throw new InvalidChatRequestError(
      'messages must contain a user message with text.',
      'messages',
      'missing_required_parameter',
    );

  return {
    botId: request.model,
    turns,
    prompt: lastUser.text,
    ...(instructions.length ? { extraInstructions: instructions.join('\n\n') } : {}),
    responseFormat: format === 'json_object' ? 'json' : 'text',
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
    stream: request.stream === true,
    includeUsage: request.stream === true && request.stream_options?.include_usage === true,
  };
}

/** A message's text: a string, or its `text` parts joined; any other part (image, audio, file) is refused. */
function messageText(content: string | { type: string; text?: string | undefined }[] | null, at: string): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type === 'image_url') throw unsupported(`${at}.content[${j}]`, 'Image input');
      if (part.type === 'input_audio') throw unsupported(`${at}.content[${j}]`, 'Audio input');
      if (part.type === 'file') throw unsupported(`${at}.content[${j}]`, 'File input');
      if (part.type !== 'text' || typeof part.text !== 'string')
        throw unsupported(`${at}.content[${j}].type`, `Content parts of type \`${part.type}\``);
      return part.text;
    })
    .join('\n');
}
