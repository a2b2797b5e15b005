import { routes } from '../contract/routes.ts';
import { requiredSetting } from '../kernel/config.ts';
import type { MeteredPlatform } from '../kernel/platform.ts';
import type { SecretBox } from '../kernel/secret-box.ts';
import { twilioInboundHandler, whatsAppInboundHandler } from './api/inbound-addresses.ts';
import { wireAcceptInbound } from './wiring.ts';

/** What a public inbound address is handed: the secret box, and where reports over 200 KB are parked (S3). */
interface InboundAddressDeps {
  secretBox: SecretBox;
  parked: { put(key: string, body: Buffer): Promise<void> };
}

/** `/inbound/whatsapp/{channelId}`, built once per cold start. Meta signs the body only, not the URL. */
export function wireWhatsAppInbound(platform: MeteredPlatform, deps: InboundAddressDeps) {
  const post = routes.find((r) => r.fn === 'inbound-whatsapp' && r.method === 'POST')!;
  const accept = wireAcceptInbound(platform, { ...deps, metrics: platform.metrics, publicBaseUrl: '' });
  return whatsAppInboundHandler(platform, { accept, maxBodyBytes: post.maxBodyBytes! });
}

/**
 * `POST /inbound/twilio/{channelId}`, built once per cold start. Twilio signs the URL it called: PUBLIC_BASE_URL and
 * the request's path and query, as it spelled them.
 */
export function wireTwilioInbound(platform: MeteredPlatform, deps: InboundAddressDeps) {
  const route = routes.find((r) => r.fn === 'inbound-twilio')!;
  const accept = wireAcceptInbound(platform, {
    ...deps,
    metrics: platform.metrics,
    publicBaseUrl: requiredSetting(platform.cfg, 'PUBLIC_BASE_URL'),
  });
  return twilioInboundHandler(platform, { accept, maxBodyBytes: route.maxBodyBytes! });
}
