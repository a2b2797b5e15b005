import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Provider signatures on inbound requests (contract §10). Both are checked in constant time; a missing header, a
 * value of the wrong length and a wrong value all give the same `false`.
 */

/**
 * Twilio's `X-Twilio-Signature`: base64(HMAC-SHA1(auth token, URL + each POST parameter's name and value, sorted by
 * name)). `url` is the full URL Twilio called (PUBLIC_BASE_URL + path + query).
 */
export function twilioSignature(authToken: string, url: string, params: [string, string][]): string {
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [name, value] of sorted) hmac.update(name + value, 'utf8');
  return hmac.digest('base64');
}

export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: [string, string][],
  header: string | undefined,
): boolean {
  if (!header) return false;
  return sameBytes(Buffer.from(twilioSignature(authToken, url, params)), Buffer.from(header));
}

/** Meta's `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256(app secret, the raw body bytes). */
export function metaSignature(appSecret: string, rawBody: Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  return sameBytes(Buffer.from(metaSignature(appSecret, rawBody)), Buffer.from(header.trim().toLowerCase()));
}

/** Constant-time equality that does not throw on different lengths. */
export function sameBytes(expected: Buffer, given: Buffer): boolean {
  // Compare against the expected value's length either way, so the time does not depend on where they differ.
  const padded = Buffer.alloc(expected.length);
  given.copy(padded, 0, 0, Math.min(given.length, expected.length));
  return timingSafeEqual(expected, padded) && given.length === expected.length;
}
