/**
 * Which model answers a bot: the bot's `model` field, a *model spec*:
 *
 * | spec                            | meaning                                                        |
 * |---------------------------------|----------------------------------------------------------------|
 * | absent                          | the deployment's provider (`MODEL_PROVIDER`) and its default model |
 * | `offline`                       | the offline generator                                          |
 * | `openai`                        | the OpenAI-compatible server, its default model (`OPENAI_MODEL`) |
 * | `openai:gpt-4o-mini`            | that model on the OpenAI-compatible server (`OPENAI_BASE_URL`)  |
 * | `bedrock`                       | Bedrock, its default model (`BEDROCK_MODEL_ID`)                |
 * | `bedrock:amazon.nova-lite-v1:0` | that Bedrock model id, inference profile or ARN                 |
 *
 * The provider is everything before the first `:`; the model id is the rest, kept whole (Bedrock ids contain `:`).
 * Bots are validated with {@link parseModelSpec} when created or edited, so a stored spec always parses.
 */
export const MODEL_PROVIDERS = ['bedrock', 'openai', 'offline'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface ModelSpec {
  provider: ModelProviderName;
  /** Absent: the provider's default model for this deployment. */
  model?: string;
}

/** Longest accepted spec (a Bedrock ARN of an inference profile fits well within it). */
export const MODEL_SPEC_MAX_LENGTH = 300;

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

export type ModelSpecResult = { ok: true; spec: ModelSpec } | { ok: false; message: string };

/** Parses a bot's `model` field; the message says what a valid value looks like. */
export function parseModelSpec(value: string): ModelSpecResult {
  const text = value.trim();
  if (text.length === 0 || text.length > MODEL_SPEC_MAX_LENGTH) {
    return { ok: false, message: `model must be 1 to ${MODEL_SPEC_MAX_LENGTH} characters` };
  }
  const colon = text.indexOf(':');
  const provider = (colon === -1 ? text : text.slice(0, colon)).toLowerCase();
  const model = colon === -1 ? undefined : text.slice(colon + 1);
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    return {
      ok: false,
      message: `model must start with one of ${MODEL_PROVIDERS.join(', ')} (for example "openai:gpt-4o-mini" or "bedrock:amazon.nova-lite-v1:0")`,
    };
  }
  if (model !== undefined) {
    if (provider === 'offline') return { ok: false, message: 'the offline provider has no model ids: use "offline"' };
    if (!MODEL_ID.test(model)) return { ok: false, message: `"${model}" is not a valid model id` };
  }
  return {
    ok: true,
    spec:
      model === undefined
        ? { provider: provider as ModelProviderName }
        : { provider: provider as ModelProviderName, model },
  };
}

/** The spec as stored and shown: `provider` or `provider:model`. */
export function formatModelSpec(spec: ModelSpec): string {
  return spec.model === undefined ? spec.provider : `${spec.provider}:${spec.model}`;
}
