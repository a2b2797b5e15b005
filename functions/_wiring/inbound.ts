import { s3RawReportStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-raw-report-store.ts';
import { requiredSetting } from '#shared/kernel/config.ts';
import { wireInboundWorker } from '#shared/messaging/index.ts';
import { eventPublisherFromConfig } from './event-publisher.ts';
import { mediaStoreFromConfig } from './media.ts';
import { platform } from './platform.ts';
import { secretBoxFromConfig } from './secret-box.ts';
import { mailParserFromConfig } from './untrusted-mail.ts';
import { USER_AGENT } from './user-agent.ts';

/**
 * An inbound worker's handler (`inbound` or `inbound-ordered`: shared/messaging/wiring.ts), built once per cold start
 * on this deployment's clients: the S3 stores loaded on first use, mail parsed as UNTRUSTED_PARSING says.
 */
export async function inboundHandler(fn: 'inbound' | 'inbound-ordered') {
  const on = platform(fn);
  const { cfg } = on;
  return wireInboundWorker(fn, on, {
    secretBox: await secretBoxFromConfig(cfg),
    events: eventPublisherFromConfig(cfg),
    rawReports: s3RawReportStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
    mediaStore: mediaStoreFromConfig(cfg),
    parseMail: mailParserFromConfig(cfg),
    userAgent: USER_AGENT,
    allowPrivateDestinations: cfg.webhookAllowPrivate,
  });
}
