import { s3RawReportStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-raw-report-store.ts';
import { requiredSetting } from '#shared/kernel/config.ts';
import { wireTwilioInbound } from '#shared/messaging/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('inbound-twilio');
const { cfg } = platform;

/**
 * `POST /inbound/twilio/{channelId}`: Twilio's status callbacks and incoming messages, signature checked and queued
 * (shared/messaging/api/inbound-addresses.ts).
 */
export const handler = wireTwilioInbound(platform, {
  // Reports over 200 KB are parked in the transfer bucket; its S3 client loads with the first.
  parked: s3RawReportStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER')),
  secretBox: await secretBoxFromConfig(cfg),
});
