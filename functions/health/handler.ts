import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { readOptionalSecret } from '#shared/kernel/aws/secrets.ts';
import { DynamoCreditLedger } from '#shared/credits/adapters/dynamo-credit-ledger.ts';
import { modelProbe } from '#shared/models/adapters/model-probe.ts';
import { bucketProbe } from '#shared/health/adapters/bucket-probe.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { makeGetHealth } from '#shared/health/get-health.ts';
import { botsApiFunction } from '#shared/auth/api/presets.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('health');
const metrics = new PowertoolsMetrics('health');
const table = dynamoTable(cfg);
const openAiApiKey = await readOptionalSecret(cfg.OPENAI_API_KEY_SECRET_ARN, cfg.AWS_REGION, (cause) =>
  logger.warn('model API key secret unreadable; the model probe goes without a key', { cause: String(cause) }),
);
const probes = [modelProbe(cfg, openAiApiKey === undefined ? {} : { openAiApiKey })];
if (cfg.BUCKET_KNOWLEDGE) probes.push(bucketProbe(s3Client(cfg), cfg.BUCKET_KNOWLEDGE));
const getHealth = makeGetHealth({
  credits: new DynamoCreditLedger(table),
  probes,
  probeTimeoutMs: 2_000,
  probeCacheMs: 10_000,
  // The request that ran the probe is in the log keys (request id); the response says only what failed.
  onProbeFailure: (dependency, error) => {
    const cause = error instanceof Error && error.cause !== undefined ? { rootCause: String(error.cause) } : {};
    logger.warn('health probe failed', { dependency, cause: String(error), ...cause });
  },
});

/** `GET /api/v1/ai/health`: free diagnostics; never generates. */
export const handler = botsApiFunction({ logger, metrics, auth: botsApiAuthFromConfig(cfg, table, metrics) }).handler(
  async (event) => {
    const report = await getHealth(event.auth.grant);
    const botrag = {
      ok: report.botrag.ok,
      latenciaMs: report.botrag.latencyMs,
      ...(report.botrag.detail ? { detalhe: report.botrag.detail } : {}),
    };
    return json(200, {
      success: true,
      companyId: report.companyId,
      botrag,
      creditos: { disponivel: report.credits.available, mes: report.credits.month },
      checkedAt: report.checkedAt,
    });
  },
);
