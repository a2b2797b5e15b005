import type { ContentBlock, ConverseCommandInput, Tool } from '@aws-sdk/client-bedrock-runtime';
import { conversationOf, type ConversationTurn, type JsonSchemaFormat, type ModelRequest } from '../../models/index.ts';

/*
 * A model request as Bedrock's Converse API takes it: the system prompt, the conversation (alternating turns, tool
 * calls and results as blocks), the inference settings, the caller's functions, and the answer's JSON Schema, natively
 * where the model family has structured output, else as a tool the model is made to call.
 */

/**
 * Model families whose Converse API takes `outputConfig.textFormat` (native structured output, constrained decoding),
 * matched on the model id without its cross-region inference prefix (`us.`, `eu.`, `global.`...).
 */
const STRUCTURED_OUTPUT_MODELS: RegExp[] = [
  /^anthropic\.claude-(haiku|sonnet|opus)-(4-[5-9]|[5-9])/,
  /^qwen\./,
  /^deepseek\./,
  /^mistral\./,
  /^google\.gemma/,
  /^nvidia\.nemotron/,
  /^minimax\./,
  /^moonshot/,
  /^openai\.gpt-oss/,
];

/**
 * The schema used when JSON is asked for without one (the Bots API asks for "one JSON value"): any object. A model
 * that only accepts closed schemas refuses it with a ValidationException; the adapter then asks again without it
 * (the validation answer comes back before any generation) and stops offering it to that model.
 */
export const OPEN_JSON_SCHEMA = { type: 'object' };

/**
 * Structured output on a model without native structured output: a tool whose input schema is the answer's schema,
 * which the model is made to call; its input is the answer. Named after the schema, unless one of the caller's
 * functions has that name.
 */
export function answerToolOf(modelId: string, request: ModelRequest): JsonSchemaFormat | undefined {
  const format = request.jsonSchema;
  if (request.responseFormat !== 'json' || !format || supportsStructuredOutput(modelId)) return undefined;
  const taken = new Set((request.tools ?? []).map((t) => t.name));
  let name = format.name;
  while (taken.has(name)) name = `${name}_answer`;
  return { ...format, name };
}

/** True when the model takes native structured output (`outputConfig.textFormat`). */
export function supportsStructuredOutput(modelId: string): boolean {
  const id = baseModelId(modelId);
  return STRUCTURED_OUTPUT_MODELS.some((pattern) => pattern.test(id));
}

/** `us.anthropic.claude-…` → `anthropic.claude-…`; a foundation-model ARN → its model id. */
function baseModelId(modelId: string): string {
  const arn = /:foundation-model\/(.+)$/.exec(modelId);
  const id = arn ? arn[1]! : modelId;
  return id.replace(/^(us|eu|apac|global|jp|au|ca|us-gov)\./, '');
}

/** The Converse request for a model request (the provider sends it; tests check the mapping). */
export function converseInput(
  modelId: string,
  request: ModelRequest,
  jsonSchema: Record<string, unknown> | undefined,
  options: { inlineSystem?: boolean } = {},
): ConverseCommandInput {
  const answerTool = answerToolOf(modelId, request);
  const callerTools = request.toolChoice === 'none' ? [] : (request.tools ?? []);
  const tools: Tool[] = [...callerTools, ...(answerTool ? [answerTool] : [])].map((tool) => ({
    toolSpec: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: { json: withoutSchemaKeyword('parameters' in tool ? tool.parameters : tool.schema) as never },
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }));
  // Converse refuses tool blocks in the history without a toolConfig: with no tools to offer, they are told as text.
  const messages = converseMessages(request, tools.length > 0);
  const input: ConverseCommandInput = options.inlineSystem
    ? { modelId, messages: inlineSystemPrompt(request.system, messages) }
    : { modelId, system: [{ text: request.system }], messages };
  const inference: NonNullable<ConverseCommandInput['inferenceConfig']> = {};
  // Converse models take 0..1 (a caller's value above 1 is refused before this; a bot's is at most 1).
  if (request.temperature !== undefined) inference.temperature = Math.min(1, request.temperature);
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  const parameters = request.parameters ?? {};
  if (parameters.top_p !== undefined) inference.topP = parameters.top_p;
  if (parameters.stop !== undefined && parameters.stop.length > 0) inference.stopSequences = parameters.stop;
  if (Object.keys(inference).length) input.inferenceConfig = inference;
  const metadata = {
    ...(parameters.metadata ?? {}),
    ...(parameters.user === undefined ? {} : { user: parameters.user }),
  };
  if (Object.keys(metadata).length) input.requestMetadata = metadata;
  if (parameters.service_tier === 'flex' || parameters.service_tier === 'priority')
    input.serviceTier = { type: parameters.service_tier };
  if (tools.length > 0) {
    const choice = request.toolChoice;
    input.toolConfig = {
      tools,
      ...(answerTool
        ? { toolChoice: typeof choice === 'object' ? { tool: { name: choice.name } } : { any: {} } }
        : choice === 'required'
          ? { toolChoice: { any: {} } }
          : typeof choice === 'object'
            ? { toolChoice: { tool: { name: choice.name } } }
            : {}),
    };
  }
  if (jsonSchema) {
    input.outputConfig = {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { name: request.jsonSchema?.name ?? 'answer', schema: JSON.stringify(jsonSchema) } },
      },
    };
  }
  return input;
}

/** A caller's schema as Converse takes it: without the `$schema` dialect marker clients add (some models refuse it). */
function withoutSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, ...rest } = schema;
  return rest;
}

type ConverseMessages = NonNullable<ConverseCommandInput['messages']>;

/**
 * The conversation as Converse takes it: it must start with a user turn and alternate, so consecutive turns of one
 * role are joined (the results of parallel calls become one user turn of `toolResult` blocks), and a conversation
 * that opens with the assistant gets an empty-handed user turn before it. Without tools on offer (`withTools`
 * false), calls and results are written as text.
 */
function converseMessages(request: ModelRequest, withTools: boolean): ConverseMessages {
  const messages: ConverseMessages = [];
  for (const turn of conversationOf(request)) {
    const role = turn.role === 'tool' ? 'user' : turn.role;
    const blocks = contentBlocks(turn, withTools);
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === role) last.content!.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ text: '(conversation)' }] });
  return messages;
}

function contentBlocks(turn: ConversationTurn, withTools: boolean): ContentBlock[] {
  if (turn.role === 'tool') {
    return withTools
      ? [{ toolResult: { toolUseId: turn.toolCallId, content: [{ text: turn.text || '(empty)' }] } }]
      : [{ text: `(result of call ${turn.toolCallId}: ${turn.text})` }];
  }
  const blocks: ContentBlock[] = turn.text ? [{ text: turn.text }] : [];
  if (turn.role === 'assistant') {
    for (const call of turn.toolCalls ?? []) {
      blocks.push(
        withTools
          ? { toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) as never } }
          : { text: `(called ${call.name} ${call.arguments} as ${call.id})` },
      );
    }
  }
  return blocks.length > 0 ? blocks : [{ text: '(empty)' }];
}

/** A call's JSON arguments as the document Converse takes (the edge checked they parse to an object). */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** For models that take no system prompt: the instructions go first in the first user turn. */
function inlineSystemPrompt(system: string, messages: ConverseMessages): ConverseMessages {
  const [first, ...rest] = messages;
  const text = (first?.content ?? []).map((block) => block.text ?? '').join('\n\n');
  return [{ role: 'user', content: [{ text: `${system}\n\n${text}` }] }, ...rest];
}
