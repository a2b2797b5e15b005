import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { DependencyProbe } from '../health/index.ts';
import { readOptionalSecret } from '../kernel/aws/secrets.ts';
import type { Config } from '../kernel/config.ts';
import type { Metrics } from '../kernel/metrics.ts';
import type { Platform } from '../kernel/platform.ts';
import { BedrockTitanEmbeddings } from './adapters/bedrock-titan-embeddings.ts';
import { type DeploymentModels, deploymentModelRouter } from './adapters/deployment-model-router.ts';
import { meteredModelRouter } from './adapters/metered-model.ts';
import { modelProbe } from './adapters/model-probe.ts';
import { OpenAiCompatibleEmbeddings } from './adapters/openai-embeddings.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import type { ModelRouter } from '../models/index.ts';
import { type ModelSettings, modelSettings } from './settings.ts';

/** Longest one Titan embeddings call may take. */
const TITAN_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Which model answers each bot (its `model` spec, or the deployment's default), each provider built on its first use,
 * with every call's latency and tokens in `metrics` when given. Reads the OpenAI-compatible server's key from its
 * secret on AWS: call it once per cold start.
 */
export async function modelRouterFromSettings(
  platform: Pick<Platform, 'cfg' | 'logger'> & { metrics?: Metrics },
  settings: ModelSettings = modelSettings.read(),
): Promise<ModelRouter> {
  const router = deploymentModelRouter(await deploymentModels(platform, settings, 'OpenAI-compatible calls will go'));
  return platform.metrics ? meteredModelRouter(router, platform.metrics) : router;
}

/** The health route's probe of the deployment's default model provider (generates nothing). Once per cold start. */
export async function modelProbeFromSettings(
  platform: Pick<Platform, 'cfg' | 'logger'>,
  settings: ModelSettings = modelSettings.read(),
): Promise<DependencyProbe> {
  return modelProbe(await deploymentModels(platform, settings, 'the model probe goes'));
}

/**
 * The embeddings model knowledge indexes and searches with (and `POST /api/v1/ai/embeddings` answers with), when
 * `EMBEDDINGS_PROVIDER` names one; undefined: lexical search only. Ingestion and search must agree on the model: an
 * index built with another model (or none) is searched lexically. Bedrock's SDK loads on the first `embed`.
 */
export function embeddingsFromSettings(
  cfg: Pick<Config, 'AWS_REGION'>,
  settings: ModelSettings = modelSettings.read(),
): EmbeddingsProvider | undefined {
  if (settings.EMBEDDINGS_PROVIDER === 'bedrock') {
    return new BedrockTitanEmbeddings(
      bedrockClientOnFirstUse(cfg.AWS_REGION, TITAN_REQUEST_TIMEOUT_MS),
      settings.EMBEDDINGS_MODEL ?? 'amazon.titan-embed-text-v2:0',
      settings.EMBEDDINGS_DIMENSIONS ?? 512,
    );
  }
  if (settings.EMBEDDINGS_PROVIDER === 'openai') {
    const baseUrl = settings.EMBEDDINGS_BASE_URL ?? settings.OPENAI_BASE_URL;
    if (!baseUrl)
      throw new Error('Invalid configuration: EMBEDDINGS_PROVIDER=openai needs EMBEDDINGS_BASE_URL or OPENAI_BASE_URL');
    return new OpenAiCompatibleEmbeddings({
      baseUrl,
      apiKey: settings.EMBEDDINGS_API_KEY ?? settings.OPENAI_API_KEY,
      model: settings.EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
      ...(settings.EMBEDDINGS_DIMENSIONS ? { dimensions: settings.EMBEDDINGS_DIMENSIONS } : {}),
    });
  }
  return undefined;
}

/** The settings as the adapters take them, with the OpenAI-compatible key from its secret when there is one. */
async function deploymentModels(
  platform: Pick<Platform, 'cfg' | 'logger'>,
  settings: ModelSettings,
  withoutKey: string,
): Promise<DeploymentModels> {
  const { cfg, logger } = platform;
  const secretKey = await readOptionalSecret(settings.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
    logger.warn(`model API key secret unreadable; ${withoutKey} without a key`, { cause: String(cause) }),
  );
  const apiKey = secretKey ?? settings.OPENAI_API_KEY;
  return {
    region: cfg.AWS_REGION,
    defaultProvider: settings.modelProvider,
    bedrockModelId: settings.BEDROCK_MODEL_ID,
    openAi: {
      ...(settings.OPENAI_BASE_URL === undefined ? {} : { baseUrl: settings.OPENAI_BASE_URL }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(settings.OPENAI_MODEL === undefined ? {} : { model: settings.OPENAI_MODEL }),
    },
  };
}

/** A Bedrock runtime client made on the first call, with its module loaded then (kept out of cold starts). */
function bedrockClientOnFirstUse(region: string, requestTimeoutMs: number): () => Promise<BedrockRuntimeClient> {
  let client: Promise<BedrockRuntimeClient> | undefined;
  return () =>
    (client ??= import('./adapters/bedrock-client.ts').then(
      ({ bedrockRuntimeClient }) => bedrockRuntimeClient({ region, requestTimeoutMs }),
      (error: unknown) => {
        client = undefined;
        throw error;
      },
    ));
}
