import { queryPairs } from '../../http/middleware.ts';
import { providerFunction, rawBytesBody } from '../../http/presets.ts';
import type { HttpResult } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import type { AcceptInbound } from '../inbound/accept-inbound.ts';

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
export function whatsAppInboundHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  deps: { accept: AcceptInbound; maxBodyBytes: number },
) {
  const { accept } = deps;
  return providerFunction({ ...observedOf(observed), body: rawBytesBody(deps.maxBodyBytes) }).handler(async (event) => {
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
  });
}

/**
 * `POST /inbound/twilio/{channelId}`: Twilio's status callbacks and incoming messages. 403 INVALID_SIGNATURE on a
 * bad `X-Twilio-Signature` (nothing recorded), 404 CHANNEL_NOT_FOUND, else queued and answered with empty TwiML.
 */
export function twilioInboundHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  deps: { accept: AcceptInbound; maxBodyBytes: number },
) {
  return providerFunction({ ...observedOf(observed), body: rawBytesBody(deps.maxBodyBytes) }).handler(async (event) => {
    await deps.accept.twilio({
      channelId: event.pathParameters?.channelId ?? '',
      path: event.path,
      query: queryPairs(event),
      rawBody: event.parsedBody,
      signature: event.normalizedHeaders['x-twilio-signature'],
    });
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/xml; charset=utf-8' },
      body: '<Response></Response>',
    };
  });
}

const observedOf = (o: { logger: Logger; metrics: InvocationMetrics }) => ({ logger: o.logger, metrics: o.metrics });
