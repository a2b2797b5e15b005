import { s3RawReportStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-raw-report-store.ts';
import {
  type AcceptInbound,
  channelFromItem,
  DynamoChannelDirectory,
  makeAcceptInbound,
  SqsOrderedInboundQueue,
} from '#shared/messaging/index.ts';
import { sqsClient } from '#shared/kernel/aws/sqs-client.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import type { Metrics } from '#shared/kernel/metrics.ts';
import { metricNames } from '#shared/contract/metrics.ts';
import { secretBoxFromConfig } from './secret-box.ts';
import { dynamoTable } from './table.ts';

/**
 * What a public inbound address touches, built once per cold start: the channel directory (one GetItem; all the
 * WhatsApp subscription check needs), the FIFO `inboundOrdered` queue (one send per contact the report names), the
 * transfer bucket (only for reports over 200 KB). `publicBaseUrl` is what the provider signs with the path (Twilio);
 * empty when it signs the body only. The function declares `table: { read: true }`, `sendTo: ['inboundOrdered']`,
 * the transfer bucket's `payloads/inbound/` and `secretsKey` in its access.
 */
export async function acceptInboundFromConfig(
  cfg: Config,
  publicBaseUrl: string,
  metrics: Metrics,
): Promise<AcceptInbound> {
  const bucket = requiredSetting(cfg, 'BUCKET_TRANSFER');
  const queue = new SqsOrderedInboundQueue(sqsClient(cfg), requiredSetting(cfg, 'QUEUE_URL_INBOUND_ORDERED'));
  return makeAcceptInbound({
    channels: DynamoChannelDirectory.over(dynamoTable(cfg), await secretBoxFromConfig(cfg), channelFromItem),
    // Counted once queued, by provider: a report refused (bad signature, unknown channel) is not one.
    queue: {
      async send(copies) {
        await queue.send(copies);
        const source = copies[0]?.report.source;
        if (source) metrics.count(metricNames.inboundReports, 1, { provider: source });
      },
    },
    parked: s3RawReportStoreOnFirstUse(cfg, bucket),
    publicBaseUrl: publicBaseUrl.replace(/\/+$/, ''),
  });
}
