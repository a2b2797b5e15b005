import { wireOutboundWorker } from '#shared/messaging/index.ts';
import { eventPublisherFromConfig } from '#functions/_wiring/event-publisher.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';
import { secretBoxFromConfig } from '#functions/_wiring/secret-box.ts';
import { USER_AGENT } from '#functions/_wiring/user-agent.ts';

// Composition root: built once per cold start.
const platform = meteredPlatform('outbound');
const { cfg } = platform;

/**
 * `outbound` queue → batch items and scheduled sends, each at its channel's pace and time, sent as a send received
 * then (shared/messaging/api/outbound-worker.ts).
 */
export const handler = wireOutboundWorker(platform, {
  secretBox: await secretBoxFromConfig(cfg),
  events: eventPublisherFromConfig(cfg),
  userAgent: USER_AGENT,
});
