import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Provider signatures on inbound requests. Both are checked in constant time; a missing header, a
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

/**
 * Every URL a signature over `baseAndPath` + this query may have been computed on (the URL exactly as
 * requested). API Gateway's REST proxy event carries the query decoded (`%20` and `+` both a space, `%2F` a slash),
 * so the spelling Twilio signed is recovered by writing the query each way a URL's author or a client writes it:
 * - RFC 3986 (`%20`, only `A-Z a-z 0-9 - . _ ~` left as they are: what a URL typed with escapes usually is);
 * - `encodeURIComponent` (also `! ' ( ) *` as they are);
 * - the HTML form encoding (`+` for a space, WHATWG URLSearchParams);
 * - as little as a query needs (RFC 3986 allows `/ ? : @ ! $ ' ( ) * , ;` unescaped, and `=` inside a value),
 * each with and, when a value is empty, without the `=` (`?flag`). Names and values come in the order given.
 * Out of reach, because the decoded query no longer says it: lowercase hex escapes, a mix of spellings in one
 * query, and one name's values interleaved with another's (API Gateway groups them by name).
 */
export function twilioUrlSpellings(baseAndPath: string, query: [string, string][]): string[] {
  if (!query.length) return [baseAndPath];
  const bare = query.some(([, value]) => value === '') ? [false, true] : [false];
  const urls = new Set<string>();
  for (const spell of QUERY_SPELLINGS)
    for (const omitEmpty of bare)
      urls.add(
        `${baseAndPath}?${query
          .map(([name, value]) =>
            omitEmpty && value === '' ? spell(name, false) : `${spell(name, false)}=${spell(value, true)}`,
          )
          .join('&')}`,
      );
  return [...urls];
}

const percent = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
/** What a query may hold unescaped (RFC 3986 `pchar`, `/`, `?`); `&`, `=`, `+`, `#` and `%` stay escaped. */
const QUERY_LEGAL = /%(2F|3F|3A|40|24|2C|3B)/g;
const QUERY_SPELLINGS: ((text: string, isValue: boolean) => string)[] = [
  (text) => encodeURIComponent(text).replace(/[!'()*]/g, percent),
  (text) => encodeURIComponent(text),
  (text) =>
    encodeURIComponent(text)
      .replace(/[!'()~]/g, percent)
      .replace(/%20/g, '+'),
  (text, isValue) => {
    const spelled = encodeURIComponent(text).replace(QUERY_LEGAL, (code) => decodeURIComponent(code));
    return isValue ? spelled.replace(/%3D/g, '=') : spelled;
  },
];

/**
 * {@link verifyTwilioSignature} against each of `urls` (from {@link twilioUrlSpellings}): true when one matches.
 * Every URL is checked, each in constant time, so the time taken does not say which one matched.
 */
export function verifyTwilioSignatureOfAny(
  authToken: string,
  urls: string[],
  params: [string, string][],
  header: string | undefined,
): boolean {
  let valid = false;
  for (const url of urls) valid = verifyTwilioSignature(authToken, url, params, header) || valid;
  return valid;
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
