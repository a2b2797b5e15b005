import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA256>` of `"{id}.{timestamp}.{body}"`
 * under the secret's bytes (the base64 after `whsec_`). Receivers verify with any Standard Webhooks library, e.g.
 * `new Webhook(secret).verify(body, headers)` from the `standardwebhooks` package.
 */
const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_…` secret. */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('Empty signing secret');
  return key;
}

/** One `v1,<signature>` entry for a message. */
export function signPayload(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', signingKey(secret));
  mac.update(`${messageId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The `webhook-signature` header value: one entry per live secret, space-separated (during a rotation both the new
 * and the previous secret sign, so receivers holding either one verify).
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  if (!secrets.length) throw new Error('No signing secret');
  return secrets.map((s) => signPayload(s, messageId, timestampSeconds, body)).join(' ');
}

/** The Standard Webhooks headers of one delivery attempt. */
export function standardWebhookHeaders(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string | Buffer,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, messageId, timestampSeconds, body),
  };
}
