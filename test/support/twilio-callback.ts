import twilio from 'twilio';

/**
 * Posts a callback to `url` as Twilio does: form-encoded, with `X-Twilio-Signature` computed by Twilio's own library
 * from the account's auth token, the URL and the parameters.
 */
export function postTwilioCallback(
  url: string,
  authToken: string,
  params: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, url, params),
    },
    body: new URLSearchParams(params).toString(),
    ...(signal ? { signal } : {}),
  });
}
