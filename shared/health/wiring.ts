import type { S3Client } from '@aws-sdk/client-s3';
import type { CreditLedger } from '../credits/index.ts';
import type { Platform } from '../kernel/platform.ts';
import { bucketProbe } from './adapters/bucket-probe.ts';
import { healthHandler } from './api/health-route.ts';
import { type DependencyProbe, makeGetHealth } from './get-health.ts';

/** One probe round's deadline: the route answers within it even when a dependency hangs. */
const PROBE_TIMEOUT_MS = 2_000;
/** How long one instance shares a probe result (a client polling health cannot become a storm of probes). */
const PROBE_CACHE_MS = 10_000;

/**
 * `GET /api/v1/ai/health`: probes the model provider (its probe comes from the models area) and the knowledge
 * bucket when there is one (with the function's S3 client), and reads the balance from `credits`. A failed probe is
 * logged in full (model id, cloud error) and answered only by the dependency's name.
 */
export function wireHealth(
  platform: Pick<Platform, 'cfg' | 'logger'>,
  deps: { credits: CreditLedger; modelProbe: DependencyProbe; s3: () => S3Client },
) {
  const { cfg, logger } = platform;
  const probes = [deps.modelProbe];
  if (cfg.BUCKET_KNOWLEDGE) probes.push(bucketProbe(deps.s3(), cfg.BUCKET_KNOWLEDGE));
  const getHealth = makeGetHealth({
    credits: deps.credits,
    probes,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    probeCacheMs: PROBE_CACHE_MS,
    // The request that ran the probe is in the log keys (request id); the response says only what failed.
    onProbeFailure: (dependency, error) => {
      const cause = error instanceof Error && error.cause !== undefined ? { rootCause: String(error.cause) } : {};
      logger.warn('health probe failed', { dependency, cause: String(error), ...cause });
    },
  });
  return healthHandler(getHealth);
}
