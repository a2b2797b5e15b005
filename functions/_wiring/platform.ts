import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import type { MeteredPlatform, Platform } from '#shared/kernel/platform.ts';
import { dynamoTable } from './table.ts';

/** The function's platform (settings, logger named after it, the table), built once per cold start. */
export function platform(fn: string): Platform {
  const cfg = config();
  return { cfg, logger: createLogger(fn), table: dynamoTable(cfg) };
}

/** {@link platform} with the function's metrics (CloudWatch EMF, published at the end of each invocation). */
export function meteredPlatform(fn: string): MeteredPlatform {
  const cfg = config();
  return { cfg, logger: createLogger(fn), metrics: new PowertoolsMetrics(fn), table: dynamoTable(cfg) };
}
