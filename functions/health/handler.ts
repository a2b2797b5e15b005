import { readOptionalSecret } from '#shared/kernel/aws/secrets.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { modelProbe } from '#shared/models/adapters/model-probe.ts';
import { wireHealth } from '#shared/health/index.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('health');
const { cfg, logger, metrics, table } = platform;
const openAiApiKey = await readOptionalSecret(cfg.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
  logger.warn('model API key secret unreadable; the model probe goes without a key', { cause: String(cause) }),
);

/** `GET /api/v1/ai/health`: free diagnostics; never generates. */
export const handler = botsApiFunction({ logger, metrics, auth: botsApiAuthFromConfig(cfg, table, metrics) }).handler(
  wireHealth(platform, {
    credits: new DynamoCreditLedger(table),
    modelProbe: modelProbe(cfg, openAiApiKey === undefined ? {} : { openAiApiKey }),
    s3: () => s3Client(cfg),
  }),
);
