import { DynamoChannelDirectory } from '#shared/messaging/adapters/dynamo-channel-directory.ts';
import { channelFromItem } from '#shared/messaging/adapters/dynamo-channel-store.ts';
import { s3RawReportStoreOnFirstUse } from '#shared/messaging/adapters/lazy-s3-raw-report-store.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { SqsJsonQueue } from '#shared/kernel/aws/sqs-json-queue.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import { type AcceptInbound, makeAcceptInbound } from '#shared/messaging/inbound/accept-inbound.ts';
import type { InboundReport } from '#shared/messaging/inbound/report.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { secretBoxFromConfig } from './secret-box.ts';
import { dynamoTable } from './table.ts';

/**
 * What a public inbound address touches, built once per cold start: the channel directory (one GetItem; all the
 * WhatsApp subscription check needs), the `inbound` queue (one send), the transfer bucket (only for reports over
 * 200 KB). `publicBaseUrl` is what the provider signs with the path (Twilio); empty when it signs the body only.
 * The function declares `table: { read: true }`, `sendTo: ['inbound']`, the transfer bucket's `payloads/inbound/`
 * and `secretsKey` in its access.
 */
export async function acceptInboundFromConfig(
  cfg: Config,
  publicBaseUrl: string,
  metrics: Metrics,
): Promise<AcceptInbound> {
  const bucket = requiredSetting(cfg, 'BUCKET_TRANSFER');
  const queue = new SqsJsonQueue<InboundReport>(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND'));
  return makeAcceptInbound({
    channels: DynamoChannelDirectory.over(dynamoTable(cfg), await secretBoxFromConfig(cfg), channelFromItem),
    // Counted once queued, by provider: a report refused (bad signature, unknown channel) is not one.
    queue: {
      async send(report) {
        await queue.send(report);
        metrics.count(metricNames.inboundReports, 1, { provider: report.source });
      },
    },
    parked: s3RawReportStoreOnFirstUse(cfg, bucket),
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
  });
}
