import { bodyBytes, httpFunction } from '#shared/http/middleware.ts';
import { inboundHttpError, refuseLargeBody } from '#shared/http/inbound-errors.ts';
import type { HttpEvent, HttpResult } from '#shared/http/types.ts';
import { routes } from '#shared/resources/routes.ts';
import { inboundWiring } from './wiring.ts';

const { logger, accept } = await inboundWiring('inbound-whatsapp');
const maxBodyBytes = routes.find((r) => r.fn === 'inbound-whatsapp' && r.method === 'POST')!.maxBodyBytes!;

/**
 * `/inbound/whatsapp/{channelId}`: `GET` is Meta's subscription check (the challenge echoed for the right
 * `hub.verify_token`), `POST` its webhooks, checked against `X-Hub-Signature-256` over the raw bytes and queued.
 * 403 INVALID_SIGNATURE, 404 CHANNEL_NOT_FOUND; a signed body that does not parse is still 200 (the worker logs it).
 */
export const handler = httpFunction(logger).handler(async (event: HttpEvent): Promise<HttpResult> => {
  const channelId = event.pathParameters?.channelId ?? '';
  try {
    if (event.httpMethod === 'GET') {
      const query = event.queryStringParameters ?? {};
      const challenge = await accept.whatsAppSubscription({
        channelId,
        mode: query['hub.mode'],
        verifyToken: query['hub.verify_token'],
        challenge: query['hub.challenge'],
      });
      return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: challenge };
    }
    const rawBody = bodyBytes(event);
    refuseLargeBody(rawBody.length, maxBodyBytes);
    await accept.whatsApp({ channelId, rawBody, signature: event.normalizedHeaders['x-hub-signature-256'] });
    return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'OK' };
  } catch (error) {
    throw inboundHttpError(error);
  }
});
