import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { DynamoCreditLedger } from '#shared/credits/index.ts';
import { modelProbeFromSettings } from '#shared/model-providers/index.ts';
import { wireHealth } from '#shared/health/index.ts';
import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('health');
const { cfg, logger, metrics, table } = platform;

/** `GET /api/v1/ai/health`: free diagnostics; never generates. */
export const handler = botsApiFunction({ logger, metrics, auth: wireBotsApiAuth(platform) }).handler(
  wireHealth(platform, {
    credits: new DynamoCreditLedger(table),
    modelProbe: await modelProbeFromSettings(platform),
    s3: () => s3Client(cfg),
  }),
);
