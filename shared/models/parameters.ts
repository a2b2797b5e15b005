import type { ModelProviderName } from './model-spec.ts';

/**
 * The caller's generation parameters besides the conversation, tools and output format, named as in OpenAI's Chat
 * Completions (the vocabulary every client speaks). Each one is either forwarded to the bot's model provider or
 * refused before anything is charged: none is accepted and ignored, since a caller relying on it would get an answer
 * made without it (docs/openai-compatible-api.md). Which provider takes which is {@link PARAMETER_RULES}; what each
 * adapter makes of it is in the adapter.
 */
export interface ModelParameters {
  top_p?: number;
  stop?: string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  user?: string;
  metadata?: Record<string, string>;
  service_tier?: string;
  reasoning_effort?: string;
  verbosity?: string;
  prediction?: unknown;
  web_search_options?: unknown;
  prompt_cache_key?: string;
  safety_identifier?: string;
}

export type ModelParameterName = keyof ModelParameters;

/** How one provider treats one parameter: whether it takes this value, and what the README's table says. */
interface Treatment {
  accepts: (value: unknown) => boolean;
  doc: string;
}

const forwarded = (doc = 'forwarded'): Treatment => ({ accepts: () => true, doc });
const refused = (neutral?: (value: unknown) => boolean, when = ''): Treatment => ({
  accepts: neutral ?? (() => false),
  doc: when ? `400 unless ${when}` : '400',
});
const isZero = (value: unknown) => value === 0;
const isEmptyObject = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value as object).length === 0;

/**
 * Per parameter and provider: taken (and how) or refused with 400 `unsupported_parameter` naming it. A value that
 * asks for what the provider does anyway (`presence_penalty: 0`, `logit_bias: {}`) is taken everywhere: honouring it
 * costs nothing. The `openai` provider is any OpenAI-compatible server: parameters go to it as they came.
 */
export const PARAMETER_RULES: Record<ModelParameterName, Record<ModelProviderName, Treatment>> = {
  top_p: {
    bedrock: forwarded('`inferenceConfig.topP`'),
    openai: forwarded(),
    offline: refused((v) => v === 1, '1 (it does not sample)'),
  },
  stop: {
    bedrock: forwarded('`inferenceConfig.stopSequences`'),
    openai: forwarded(),
    offline: forwarded('honoured: the answer ends before the first stop sequence'),
  },
  seed: {
    bedrock: refused(),
    openai: forwarded(),
    offline: forwarded('honoured: every answer is deterministic'),
  },
  presence_penalty: { bedrock: refused(isZero, '0'), openai: forwarded(), offline: refused(isZero, '0') },
  frequency_penalty: { bedrock: refused(isZero, '0'), openai: forwarded(), offline: refused(isZero, '0') },
  logit_bias: { bedrock: refused(isEmptyObject, '`{}`'), openai: forwarded(), offline: refused(isEmptyObject, '`{}`') },
  user: { bedrock: forwarded('`requestMetadata.user` (invocation logs)'), openai: forwarded(), offline: refused() },
  metadata: { bedrock: forwarded('`requestMetadata` (invocation logs)'), openai: forwarded(), offline: refused() },
  service_tier: {
    bedrock: {
      accepts: (v) => v === 'auto' || v === 'default' || v === 'flex' || v === 'priority',
      doc: '`auto` / `default`: the standard tier; `flex`, `priority`: `serviceTier`; others 400',
    },
    openai: forwarded(),
    offline: refused((v) => v === 'auto' || v === 'default', '`auto` or `default`'),
  },
  reasoning_effort: { bedrock: refused(), openai: forwarded(), offline: refused() },
  verbosity: { bedrock: refused(), openai: forwarded(), offline: refused() },
  prediction: { bedrock: refused(), openai: forwarded(), offline: refused() },
  web_search_options: { bedrock: refused(), openai: forwarded(), offline: refused() },
  prompt_cache_key: { bedrock: refused(), openai: forwarded(), offline: refused() },
  safety_identifier: { bedrock: refused(), openai: forwarded(), offline: refused() },
};

/** `temperature` per provider: Converse models take 0 to 1; the offline model does not sample. */
export const TEMPERATURE_RULES: Record<ModelProviderName, Treatment> = {
  bedrock: { accepts: (v) => typeof v === 'number' && v <= 1, doc: '`inferenceConfig.temperature`; above 1: 400' },
  openai: forwarded(),
  offline: refused((v) => v === 0, '0 (it is deterministic)'),
};

const isProviderName = (name: string): name is ModelProviderName =>
  name === 'bedrock' || name === 'openai' || name === 'offline';

/**
 * The first of the caller's parameters the provider does not take, with a sentence saying why; undefined when it
 * takes them all. A provider outside the table (a test double) takes everything.
 */
export function refusedParameter(
  provider: string,
  request: { temperature?: number; parameters?: ModelParameters },
): { param: string; message: string } | undefined {
  if (!isProviderName(provider)) return undefined;
  if (request.temperature !== undefined && !TEMPERATURE_RULES[provider].accepts(request.temperature))
    return {
      param: 'temperature',
      message: `temperature ${request.temperature} is not supported by this bot's model (${provider}): ${TEMPERATURE_RULES[provider].doc}.`,
    };
  for (const [name, value] of Object.entries(request.parameters ?? {})) {
    if (value === undefined) continue;
    const rule = PARAMETER_RULES[name as ModelParameterName]?.[provider];
    if (!rule?.accepts(value))
      return {
        param: name,
        message: `${name} is not supported by this bot's model (${provider})${rule && rule.doc !== '400' ? `: ${rule.doc}` : ''}.`,
      };
  }
  return undefined;
}

/** One row of the parameter table the README and `/openapi.json` show. */
export interface ParameterRow {
  parameter: string;
  bedrock: string;
  openai: string;
  offline: string;
}

const everywhere = (parameter: string, text: string): ParameterRow => ({
  parameter,
  bedrock: text,
  openai: text,
  offline: text,
});

/**
 * Every Chat Completions parameter and what each provider does with it: the rows the README and `/openapi.json`
 * show (a test keeps the README's copy equal to this).
 */
export function parameterTable(): ParameterRow[] {
  const row = (parameter: string, rules: Record<ModelProviderName, Treatment>): ParameterRow => ({
    parameter: `\`${parameter}\``,
    bedrock: rules.bedrock.doc,
    openai: rules.openai.doc,
    offline: rules.offline.doc,
  });
  return [
    everywhere('`model`, `messages`', 'the bot (its instructions, knowledge and model) and the conversation'),
    everywhere('`stream`, `stream_options.include_usage`', 'honoured'),
    {
      parameter: '`tools`, `tool_choice`',
      bedrock: '`toolConfig` (`required` → `any`, a name → `tool`; `none`: no tools sent)',
      openai: 'forwarded',
      offline: 'honoured: a deterministic call of the first (or the named) function',
    },
    {
      parameter: '`parallel_tool_calls`',
      bedrock: '`false`: only the first call is kept',
      openai: 'forwarded',
      offline: 'honoured (it makes one call)',
    },
    {
      parameter: '`response_format`',
      bedrock: '`json_schema`: `outputConfig.textFormat` where the model has it, else a forced tool; validated',
      openai: 'forwarded; `json_schema` answers validated',
      offline: 'honoured: a value generated from the schema',
    },
    {
      parameter: '`max_tokens`, `max_completion_tokens`',
      bedrock: '`inferenceConfig.maxTokens`, at most `BOT_MAX_OUTPUT_TOKENS`',
      openai: 'forwarded as `max_tokens`, at most `BOT_MAX_OUTPUT_TOKENS`',
      offline: 'honoured (about 4 characters a token)',
    },
    row('temperature', TEMPERATURE_RULES),
    ...Object.entries(PARAMETER_RULES).map(([name, rules]) => row(name, rules)),
    everywhere('`n`', '1 only (400 above: one credit buys one answer)'),
    everywhere('`logprobs`, `top_logprobs`', '400 unless `false` / `0`'),
    everywhere('`store`', '400 unless `false` (nothing is stored)'),
    everywhere('`modalities`, `audio`', '400 unless `["text"]`'),
    everywhere('`functions`, `function_call`', '400 (use `tools`, `tool_choice`)'),
    everywhere('any other field', '400 `unknown_parameter`'),
  ];
}

/** {@link parameterTable} as a Markdown table. */
export function parameterTableMarkdown(): string {
  const rows = parameterTable().map((r) => `| ${r.parameter} | ${r.bedrock} | ${r.openai} | ${r.offline} |`);
  return ['| parameter | `bedrock` | `openai` | `offline` |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
