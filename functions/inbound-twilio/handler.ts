import { bodyBytes, httpFunction } from '#shared/http/middleware.ts';
import { inboundHttpError, pathAndQuery, refuseLargeBody } from '#shared/http/inbound-errors.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { routes } from '#shared/resources/routes.ts';
import { inboundWiring } from './wiring.ts';

const { logger, accept } = await inboundWiring('inbound-twilio');
const maxBodyBytes = routes.find((r) => r.fn === 'inbound-twilio')!.maxBodyBytes!;

/**
 * `POST /inbound/twilio/{channelId}`: Twilio's status callbacks and incoming messages. 403 INVALID_SIGNATURE on a
 * bad `X-Twilio-Signature` (nothing recorded), 404 CHANNEL_NOT_FOUND, else queued and answered with empty TwiML.
 */
export const handler = httpFunction(logger).handler(async (event: HttpEvent) => {
  const rawBody = bodyBytes(event);
  refuseLargeBody(rawBody.length, maxBodyBytes);
  try {
    await accept.twilio({
      channelId: event.pathParameters?.channelId ?? '',
      pathAndQuery: pathAndQuery(event),
      rawBody,
      signature: event.normalizedHeaders['x-twilio-signature'],
    });
  } catch (error) {
    throw inboundHttpError(error);
  }
  return { statusCode: 200, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: '<Response></Response>' };
});
