import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { providerFunction, rawBytesBody } from '#shared/http/presets.ts';
import type { HttpResult } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { routes } from '#shared/contract/routes.ts';
import { acceptInboundFromConfig } from '#functions/_wiring/accept-inbound.ts';

// Composition root: built once per cold start.
const cfg = config();
const logger = createLogger('inbound-whatsapp');
const metrics = new PowertoolsMetrics('inbound-whatsapp');
// Meta signs the body only, not the URL.
const accept = await acceptInboundFromConfig(cfg, '', metrics);
const post = routes.find((r) => r.fn === 'inbound-whatsapp' && r.method === 'POST')!;

const plainText = (body: string): HttpResult => ({
  statusCode: 200,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body,
});

/**
 * `/inbound/whatsapp/{channelId}`: `GET` is Meta's subscription check (the challenge echoed for the right
 * `hub.verify_token`), `POST` its webhooks, checked against `X-Hub-Signature-256` over the raw bytes and queued.
 * 403 INVALID_SIGNATURE, 404 CHANNEL_NOT_FOUND; a signed body that does not parse is still 200 (the worker logs it).
 */
export const handler = providerFunction({ logger, metrics, body: rawBytesBody(post.maxBodyBytes!) }).handler(
  async (event) => {
    const channelId = event.pathParameters?.channelId ?? '';
    if (event.httpMethod === 'GET') {
      const query = event.queryStringParameters ?? {};
      return plainText(
        await accept.whatsAppSubscription({
          channelId,
          mode: query['hub.mode'],
          verifyToken: query['hub.verify_token'],
          challenge: query['hub.challenge'],
        }),
      );
    }
    await accept.whatsApp({
      channelId,
      rawBody: event.parsedBody,
      signature: event.normalizedHeaders['x-hub-signature-256'],
    });
    return plainText('OK');
  },
);
