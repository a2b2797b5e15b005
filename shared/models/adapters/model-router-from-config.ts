import type { Config } from '../../kernel/config.ts';
import {
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
} from '../model-provider.ts';
import type { ModelRouter, ResolvedModel } from '../model-router.ts';
import { parseModelSpec, type ModelProviderName } from '../model-spec.ts';
import { OpenAiModelProvider } from './openai-model.ts';
import { OfflineModelProvider } from './offline-model.ts';

/** Longest a Bedrock call may take: the largest `timeoutMs` plus a margin (the abort signal normally ends it first). */
const BEDROCK_REQUEST_TIMEOUT_MS = 95_000;

/**
 * The deployment's model providers, built once per cold start and only when first used: Bedrock's SDK client is
 * imported lazily, so a local run on the offline provider never loads it.
 */
export function modelRouterFromConfig(
  cfg: Config,
  options: {
    /** The OpenAI-compatible server's key when it comes from a secret rather than OPENAI_API_KEY. */
    openAiApiKey?: string;
    /** Providers to use instead of the configured ones (tests). */
    overrides?: Partial<Record<ModelProviderName, ModelProvider>>;
  } = {},
): ModelRouter {
  const overrides = options.overrides ?? {};
  const providers = new Map<ModelProviderName, ModelProvider>();
  const build = (name: ModelProviderName): ModelProvider => {
    const override = overrides[name];
    if (override) return override;
    switch (name) {
      case 'offline':
        return new OfflineModelProvider();
      case 'openai':
        if (!cfg.OPENAI_BASE_URL) {
          throw new ModelError(
            'misconfigured',
            'The OpenAI-compatible provider is not configured on this deployment (OPENAI_BASE_URL).',
          );
        }
        return new OpenAiModelProvider({
          baseUrl: cfg.OPENAI_BASE_URL,
          apiKey: options.openAiApiKey ?? cfg.OPENAI_API_KEY,
          defaultModel: cfg.OPENAI_MODEL,
        });
      case 'bedrock':
        return new LazyModelProvider('bedrock', async () => {
          const { BedrockModelProvider, bedrockRuntimeClient } = await import('./bedrock-model.ts');
          return new BedrockModelProvider({
            client: bedrockRuntimeClient({ region: cfg.AWS_REGION, requestTimeoutMs: BEDROCK_REQUEST_TIMEOUT_MS }),
            defaultModelId: cfg.BEDROCK_MODEL_ID,
          });
        });
    }
  };
  return {
    resolve(spec: string | undefined): ResolvedModel {
      let name: ModelProviderName = cfg.modelProvider;
      let model: string | undefined;
      if (spec !== undefined && spec !== '') {
        const parsed = parseModelSpec(spec);
        if (!parsed.ok)
          throw new ModelError('misconfigured', `The bot's model setting is not valid: ${parsed.message}.`);
        name = parsed.spec.provider;
        model = parsed.spec.model;
      }
      let provider = providers.get(name);
      if (!provider) {
        provider = build(name);
        providers.set(name, provider);
      }
      return model === undefined ? { provider } : { provider, model };
    },
  };
}

/** A provider whose module (and SDK) loads on the first call. */
class LazyModelProvider implements ModelProvider {
  private loaded?: Promise<ModelProvider>;

  constructor(
    readonly name: string,
    private readonly load: () => Promise<ModelProvider>,
  ) {}

  async generate(request: ModelRequest): Promise<ModelReply> {
    return (await this.provider()).generate(request);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    yield* (await this.provider()).stream(request);
  }

  private provider(): Promise<ModelProvider> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }
}
