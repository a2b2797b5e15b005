import { s3RawReportStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-raw-report-store.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { type AcceptInbound, wireAcceptInbound } from '#shared/messaging/index.ts';
import { secretBoxFromConfig } from './secret-box.ts';
import { dynamoTable } from './table.ts';

/**
 * A public inbound address's use case (shared/messaging/wiring.ts) on this deployment's clients: the transfer
 * bucket's S3 client loaded only when a report is over 200 KB.
 */
export async function acceptInboundFromConfig(
  cfg: Config,
  publicBaseUrl: string,
  metrics: Metrics,
): Promise<AcceptInbound> {
  const bucket = requiredSetting(cfg, 'BUCKET_TRANSFER');
  return wireAcceptInbound(
    { cfg, table: dynamoTable(cfg) },
    {
      secretBox: await secretBoxFromConfig(cfg),
      metrics,
      parked: s3RawReportStoreOnFirstUse(cfg, bucket),
      publicBaseUrl,
    },
  );
}
