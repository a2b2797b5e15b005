import {
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type ModelStreamEvent,
} from '../../models/index.ts';
import type { ModelRouter, ResolvedModel } from '../../models/index.ts';
import { parseModelSpec, type ModelProviderName } from '../../models/index.ts';
import { OfflineModelProvider } from './offline-model.ts';
import { OpenAiModelProvider } from './openai-model.ts';

/** Longest a Bedrock call may take: the largest `timeoutMs` plus a margin (the abort signal normally ends it first). */
const BEDROCK_REQUEST_TIMEOUT_MS = 95_000;

/** The deployment's models (../wiring.ts reads them from the settings). */
export interface DeploymentModels {
  region: string;
  /** The provider of a bot that names none (`MODEL_PROVIDER`). */
  defaultProvider: ModelProviderName;
  /** Bedrock's model when a bot names only `bedrock`, or nothing. */
  bedrockModelId: string;
  /** The OpenAI-compatible server; absent: bots naming `openai` fail as misconfigured, nothing charged. */
  openAi: { baseUrl?: string; apiKey?: string; model?: string };
}

/**
 * The deployment's model providers, each built on its first use: Bedrock's module and SDK client are loaded with
 * `import()` then, so a function whose bots never ask Bedrock (a local run on the offline provider) never loads it.
 */
export function deploymentModelRouter(models: DeploymentModels): ModelRouter {
  const providers = new Map<ModelProviderName, ModelProvider>();
  const build = (name: ModelProviderName): ModelProvider => {
    switch (name) {
      case 'offline':
        return new OfflineModelProvider();
      case 'openai':
        if (!models.openAi.baseUrl) {
          throw new ModelError(
            'misconfigured',
            'The OpenAI-compatible provider is not configured on this deployment (OPENAI_BASE_URL).',
          );
        }
        return new OpenAiModelProvider({
          baseUrl: models.openAi.baseUrl,
          apiKey: models.openAi.apiKey,
          defaultModel: models.openAi.model,
        });
      case 'bedrock':
        return new LazyModelProvider('bedrock', async () => {
          const [{ BedrockModelProvider }, { bedrockRuntimeClient }] = await Promise.all([
            import('./bedrock-model.ts'),
            import('./bedrock-client.ts'),
          ]);
          return new BedrockModelProvider({
            client: bedrockRuntimeClient({ region: models.region, requestTimeoutMs: BEDROCK_REQUEST_TIMEOUT_MS }),
            defaultModelId: models.bedrockModelId,
          });
        });
    }
  };
  return {
    resolve(spec: string | undefined): ResolvedModel {
      let name: ModelProviderName = models.defaultProvider;
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
