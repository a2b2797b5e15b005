import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config, requiredSetting } from '#shared/kernel/config.ts';
import { queryPairs } from '#shared/http/middleware.ts';
import { providerFunction, rawBytesBody } from '#shared/http/presets.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { routes } from '#shared/contract/routes.ts';
import { acceptInboundFromConfig } from '#functions/_wiring/accept-inbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('inbound-twilio');
const metrics = new PowertoolsMetrics('inbound-twilio');
// Twilio signs the URL it called: PUBLIC_BASE_URL + the request's path and query, as it spelled them.
const accept = await acceptInboundFromConfig(cfg, requiredSetting(cfg, 'PUBLIC_BASE_URL'), metrics);
const route = routes.find((r) => r.fn === 'inbound-twilio')!;

/**
 * `POST /inbound/twilio/{channelId}`: Twilio's status callbacks and incoming messages. 403 INVALID_SIGNATURE on a
 * bad `X-Twilio-Signature` (nothing recorded), 404 CHANNEL_NOT_FOUND, else queued and answered with empty TwiML.
 */
export const handler = providerFunction({ logger, metrics, body: rawBytesBody(route.maxBodyBytes!) }).handler(
  async (event) => {
    await accept.twilio({
      channelId: event.pathParameters?.channelId ?? '',
      path: event.path,
      query: queryPairs(event),
      rawBody: event.parsedBody,
      signature: event.normalizedHeaders['x-twilio-signature'],
    });
    return { statusCode: 200, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: '<Response></Response>' };
  },
);
