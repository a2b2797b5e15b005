import {
  checkJsonSchema,
  compileJsonSchema,
  JSON_SCHEMA_MAX_DEPTH,
  JSON_SCHEMA_MAX_NODES,
  jsonShape,
  jsonShapeProblem,
} from '../../../kernel/validation/json-schema.ts';
import type { CompletionRequest } from '../../completion.ts';
import type { RequestBudget } from './request-budget.ts';
import { invalid, missing, present, unsupported } from './request-errors.ts';
import type {
  ConversationTurn,
  JsonSchemaFormat,
  ModelParameters,
  ToolChoice,
  ToolDefinition,
} from '../../../models/index.ts';

/**
 * The rules the OpenAI-format routes (`/chat/completions`, `/responses`) share: the output token ceiling, function
 * definitions and JSON Schemas (checked against their dialect's meta-schema here, counted toward the request's budget
 * (`request-budget.ts`); the answer format's schema compiled once the bot is known), and the generation parameters
 * every provider is asked about.
 */

/** What an OpenAI-format route asks of the use case: a completion for the bot its `model` names. */
export type OpenAiCompletion = CompletionRequest & { botId: string; parameters: ModelParameters };

/** OpenAI's own limit on functions per request. */
export const MAX_TOOLS = 128;
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `max_tokens` and its aliases: a whole number ≥ 1, above the deployment's ceiling clamped to it
 * (docs/reference/limits.md).
 */
export function outputTokens(value: unknown, param: string, ceiling: number): number | undefined {
  if (!present(value)) return undefined;
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= 1))
    throw invalid(param, `Invalid '${param}': ${JSON.stringify(value)}. Expected a whole number of at least 1.`);
  return Math.min(value, ceiling);
}

export function temperatureOf(value: unknown): number | undefined {
  if (!present(value)) return undefined;
  if (!(typeof value === 'number' && value >= 0 && value <= 2))
    throw invalid('temperature', `Invalid 'temperature': ${JSON.stringify(value)}. Expected a value between 0 and 2.`);
  return value;
}

/**
 * A caller's JSON Schema, bounded and counted (its nodes toward the request's schema budget, its text toward the
 * character budget) and checked against its dialect's meta-schema; a schema refused is the caller's 400 naming it.
 * Compiling it (what ajv's code generation costs) is left to {@link compileFormat}, once the bot is known.
 */
export function checkedSchema(schema: unknown, param: string, budget: RequestBudget): Record<string, unknown> {
  if (!isObject(schema)) throw invalid(param, `Invalid '${param}': a JSON Schema object is expected.`);
  const shape = jsonShape(schema, { nodes: JSON_SCHEMA_MAX_NODES, depth: JSON_SCHEMA_MAX_DEPTH });
  if (shape.problem) throw invalid(param, `Invalid schema in '${param}': the schema is too large: ${shape.problem}.`);
  budget.spendSchemaNodes(shape.nodes, param);
  budget.spendJson(schema);
  const checked = checkJsonSchema(schema);
  if (!checked.ok) throw invalid(param, `Invalid schema in '${param}': ${checked.message}.`);
  return schema;
}

/**
 * Compiling an answer format's schema, for later: what it finds wrong that the meta-schema does not (a `$ref` that
 * does not resolve, a `pattern` RE2 cannot run) is the caller's 400 naming `param`. The compiled schema is kept for
 * validating the answer.
 */
export function compileFormat(format: JsonSchemaFormat, param: string): () => void {
  return () => {
    const compiled = compileJsonSchema(format.schema);
    if (!compiled.ok) throw invalid(param, `Invalid schema in '${param}': ${compiled.message}.`);
  };
}

/**
 * `{ name, description?, schema, strict? }` as `response_format.json_schema` and Responses' `text.format` carry it;
 * its name, description and schema count toward the request's budget.
 */
export function jsonSchemaFormat(value: Record<string, unknown>, at: string, budget: RequestBudget): JsonSchemaFormat {
  const name = value.name;
  if (typeof name !== 'string' || !FUNCTION_NAME.test(name))
    throw invalid(`${at}.name`, `Invalid '${at}.name': letters, digits, _ and -, at most 64 characters.`);
  if (!present(value.schema)) throw missing(`${at}.schema`);
  const description = value.description;
  if (present(description) && typeof description !== 'string')
    throw invalid(`${at}.description`, `Invalid '${at}.description': a string is expected.`);
  const strict = value.strict;
  if (present(strict) && typeof strict !== 'boolean')
    throw invalid(`${at}.strict`, `Invalid '${at}.strict': a boolean is expected.`);
  budget.spend(name.length + (typeof description === 'string' ? description.length : 0));
  return {
    name,
    schema: checkedSchema(value.schema, `${at}.schema`, budget),
    ...(typeof description === 'string' ? { description } : {}),
    ...(typeof strict === 'boolean' ? { strict } : {}),
  };
}

/**
 * One function definition, from the fields both wire forms share (`name`, `description`, `parameters`, `strict`);
 * its name, description and schema count toward the request's budget.
 */
export function functionDefinition(fn: Record<string, unknown>, at: string, budget: RequestBudget): ToolDefinition {
  if (typeof fn.name !== 'string' || !FUNCTION_NAME.test(fn.name))
    throw invalid(`${at}.name`, `Invalid '${at}.name': letters, digits, _ and -, at most 64 characters.`);
  if (present(fn.description) && typeof fn.description !== 'string')
    throw invalid(`${at}.description`, `Invalid '${at}.description': a string is expected.`);
  if (present(fn.strict) && typeof fn.strict !== 'boolean')
    throw invalid(`${at}.strict`, `Invalid '${at}.strict': a boolean is expected.`);
  budget.spend(fn.name.length + (typeof fn.description === 'string' ? fn.description.length : 0));
  const parameters = present(fn.parameters)
    ? checkedSchema(fn.parameters, `${at}.parameters`, budget)
    : { type: 'object', properties: {} };
  if (present(parameters.type) && parameters.type !== 'object')
    throw invalid(`${at}.parameters`, `Invalid '${at}.parameters': a function's parameters must be an object schema.`);
  return {
    name: fn.name,
    parameters,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
  };
}

/**
 * The whole list, before any definition is read: at most {@link MAX_TOOLS} functions, and within the request's schema
 * node budget and nesting as a whole (each definition is then counted exactly as it is read).
 */
export function checkToolListSize(raw: unknown[], param: string, budget: RequestBudget): void {
  if (raw.length > MAX_TOOLS) throw invalid(param, `'${param}' holds at most ${MAX_TOOLS} functions.`);
  // Each definition adds its own wrapper objects (`{ type, function }`) on top of its schema's nodes.
  const shape = jsonShapeProblem(raw, { nodes: budget.remainingNodes + 3 * raw.length + 1, depth: 40 });
  if (shape) throw invalid(param, `'${param}' is too large: ${shape}.`);
}

/** Function names are unique in a request. */
export function checkToolNames(tools: readonly ToolDefinition[], param: string): void {
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (names.has(tool.name)) throw invalid(`${param}[${i}]`, `Duplicate function name '${tool.name}' in '${param}'.`);
    names.add(tool.name);
  }
}

/** `auto` / `none` / `required` or a function the request defines. */
export function toolChoiceOf(
  value: unknown,
  tools: readonly ToolDefinition[],
  named: (value: Record<string, unknown>) => string | undefined,
): ToolChoice | undefined {
  if (!present(value)) return undefined;
  if (value === 'auto' || value === 'none') return value;
  if (value === 'required') {
    if (tools.length === 0) throw invalid('tool_choice', "'tool_choice' is 'required' but no tools were given.");
    return value;
  }
  if (isObject(value)) {
    const name = named(value);
    if (name === undefined) {
      throw typeof value.type === 'string' && value.type !== 'function'
        ? unsupported('tool_choice', `'tool_choice' of type '${value.type}'`)
        : invalid('tool_choice', "Invalid 'tool_choice': a function's name is expected.");
    }
    if (!tools.some((t) => t.name === name))
      throw invalid('tool_choice', `'tool_choice' names '${name}', which is not one of the tools.`);
    return { name };
  }
  throw invalid('tool_choice', `Invalid 'tool_choice': ${JSON.stringify(value)}.`);
}

/**
 * A call's arguments as the caller echoes them: JSON text of an object, counted toward the budget before it is parsed.
 */
export function callArguments(value: unknown, param: string, budget: RequestBudget): string {
  if (typeof value !== 'string') throw invalid(param, `Invalid '${param}': the arguments must be a JSON string.`);
  budget.spend(value.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid(param, `Invalid '${param}': the arguments are not valid JSON.`);
  }
  if (!isObject(parsed)) throw invalid(param, `Invalid '${param}': the arguments must be a JSON object.`);
  // Providers take arguments as a document (Bedrock) and serialise it recursively: bounded here.
  const shape = jsonShapeProblem(parsed, { nodes: 10_000, depth: 64 });
  if (shape) throw invalid(param, `Invalid '${param}': ${shape}.`);
  return value;
}

/**
 * Tool results must answer calls the conversation made: a result for an id no earlier assistant turn called is the
 * caller's mistake (and a model would refuse it). Checked on the turns as built, `params` naming each turn's origin.
 */
export function checkToolResults(turns: readonly ConversationTurn[], params: readonly string[]): void {
  const open = new Set<string>();
  for (const [i, turn] of turns.entries()) {
    if (turn.role === 'assistant') for (const call of turn.toolCalls ?? []) open.add(call.id);
    else if (turn.role === 'tool') {
      if (!open.has(turn.toolCallId))
        throw invalid(
          params[i] ?? null,
          `Invalid '${params[i]}': no earlier assistant message has a tool call with id '${turn.toolCallId}'.`,
        );
      open.delete(turn.toolCallId);
    }
  }
}

/**
 * The generation parameters forwarded to the provider or refused per provider, read and type-checked from the body;
 * whether the bot's provider takes them is decided once the bot is known (`refusedParameter`).
 */
export function generationParameters(body: Record<string, unknown>): ModelParameters {
  const out: ModelParameters = {};
  const number = (name: string, min: number, max: number): number | undefined => {
    const value = body[name];
    if (!present(value)) return undefined;
    if (!(typeof value === 'number' && value >= min && value <= max))
      throw invalid(name, `Invalid '${name}': ${JSON.stringify(value)}. Expected a number from ${min} to ${max}.`);
    return value;
  };
  const string = (name: string, max = 512): string | undefined => {
    const value = body[name];
    if (!present(value)) return undefined;
    if (typeof value !== 'string' || value.length > max)
      throw invalid(name, `Invalid '${name}': a string of at most ${max} characters is expected.`);
    return value;
  };
  const topP = number('top_p', 0, 1);
  if (topP !== undefined) out.top_p = topP;
  if (present(body.stop)) {
    const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (
      !Array.isArray(stop) ||
      stop.length > 4 ||
      !stop.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 256)
    )
      throw invalid('stop', "Invalid 'stop': a string or up to 4 strings of 1 to 256 characters.");
    if (stop.length > 0) out.stop = stop as string[];
  }
  if (present(body.seed)) {
    if (!Number.isSafeInteger(body.seed)) throw invalid('seed', "Invalid 'seed': a whole number is expected.");
    out.seed = body.seed as number;
  }
  const presence = number('presence_penalty', -2, 2);
  if (presence !== undefined) out.presence_penalty = presence;
  const frequency = number('frequency_penalty', -2, 2);
  if (frequency !== undefined) out.frequency_penalty = frequency;
  if (present(body.logit_bias)) {
    const bias = body.logit_bias;
    if (
      !isObject(bias) ||
      Object.keys(bias).length > 300 ||
      !Object.values(bias).every((v) => typeof v === 'number' && v >= -100 && v <= 100)
    )
      throw invalid('logit_bias', "Invalid 'logit_bias': token ids to numbers from -100 to 100.");
    out.logit_bias = bias as Record<string, number>;
  }
  const user = string('user');
  if (user !== undefined) out.user = user;
  if (present(body.metadata)) {
    const metadata = body.metadata;
    if (
      !isObject(metadata) ||
      Object.keys(metadata).length > 16 ||
      !Object.entries(metadata).every(([k, v]) => k.length <= 64 && typeof v === 'string' && v.length <= 512)
    )
      throw invalid('metadata', "Invalid 'metadata': at most 16 string values, keys of 64 characters at most.");
    out.metadata = metadata as Record<string, string>;
  }
  for (const name of [
    'service_tier',
    'reasoning_effort',
    'verbosity',
    'prompt_cache_key',
    'safety_identifier',
  ] as const) {
    const value = string(name);
    if (value !== undefined) out[name] = value;
  }
  for (const name of ['prediction', 'web_search_options'] as const) {
    const value = body[name];
    if (!present(value)) continue;
    if (!isObject(value)) throw invalid(name, `Invalid '${name}': an object is expected.`);
    const shape = jsonShapeProblem(value, { nodes: 1_000, depth: 16 });
    if (shape) throw invalid(name, `Invalid '${name}': ${shape}.`);
    out[name] = value;
  }
  return out;
}

/** The parameters no provider here takes (one answer, no log probabilities, nothing stored, text only). */
export function refuseUnsupportedEverywhere(body: Record<string, unknown>): void {
  if (present(body.n)) {
    if (!(typeof body.n === 'number' && Number.isInteger(body.n) && body.n >= 1))
      throw invalid('n', "Invalid 'n': a whole number of at least 1.");
    if (body.n !== 1) throw unsupported('n', 'Generating more than one choice (`n` > 1)');
  }
  if (present(body.logprobs) && body.logprobs !== false) throw unsupported('logprobs', 'Log probabilities');
  if (present(body.top_logprobs) && body.top_logprobs !== 0) throw unsupported('top_logprobs', 'Log probabilities');
  if (present(body.store) && body.store !== false)
    throw unsupported('store', 'Storing completions (`store: true`; this API keeps no state)');
  if (present(body.audio)) throw unsupported('audio', 'Audio output');
  if (present(body.modalities)) {
    if (!Array.isArray(body.modalities) || body.modalities.some((m) => m !== 'text'))
      throw unsupported('modalities', 'Output other than text');
  }
  for (const param of ['functions', 'function_call'] as const)
    if (present(body[param])) throw unsupported(param, `\`${param}\` (deprecated by OpenAI: use \`tools\`)`);
}
